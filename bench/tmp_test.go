package bench

import "os"

func mkdirTemp() (string, error) { return os.MkdirTemp("", "lwreplay-bench-") }
