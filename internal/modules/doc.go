// Package modules says which of the repository's Go modules are published
// and at which release. Its tests prove a user can get them: they build a
// module proxy of the working tree and get fuzz/crtarget from it.
// docs/releasing.md says how a release is cut.
package modules

// Release is the version every module requires the lwreplay modules at:
// the release being prepared. Its tags are Release for the root module
// and "<dir>/"+Release for the others (fuzz/crtarget/v0.1.0).
const Release = "v0.1.0"

// Root is the root module's path; a module in directory dir is Root+"/"+dir.
const Root = "github.com/lwreplay/lwreplay"

// Published lists the directories of the modules a release tags: the
// root (".") and those a user may require. The examples are not published.
var Published = []string{".", "fuzz/crtarget", "actors"}

// Path returns the module path of the module in directory dir.
func Path(dir string) string {
	if dir == "." {
		return Root
	}
	return Root + "/" + dir
}
