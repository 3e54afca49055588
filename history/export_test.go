package history

// SetSpillAt sets the JSON size from which a build keeps objects' JSON in
// a mapped file, and returns a function restoring it.
func SetSpillAt(n int64) (restore func()) {
	old := spillAt
	spillAt = n
	return func() { spillAt = old }
}
