package scale

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// ChildEnv is the environment variable that makes a process a measuring
// child: it holds the Job as JSON.
const ChildEnv = "LWREPLAY_SCALE_CHILD"

// Job is what a child process measures.
type Job struct {
	// Measure is the measurement.
	Measure Measure `json:"measure"`
	// Cassette is the cassette file.
	Cassette string `json:"cassette"`
	// Lwreplay is the lwreplay binary, for ServeList and ServeWatchList.
	Lwreplay string `json:"lwreplay,omitempty"`
	// Events bounds the watch Recorder consumes (0: 100,000).
	Events int `json:"events,omitempty"`
	// Rounds is how often Recorder alternates without and with the
	// recorder, Replay alternates replay and decoding alone, and
	// DecodeList decodes (0: 3).
	Rounds int `json:"rounds,omitempty"`
	// Resources are the resources the serve measurements' informers watch
	// (nil: configmaps and pods, what `lwreplay synth` generates).
	Resources []string `json:"resources,omitempty"`
}

// Child is what a child process reported, and its peak RSS.
type Child struct {
	// Figures are what the child reported.
	Figures Figures `json:"figures"`
	// MaxRSS is the child's peak resident set size in bytes (0 where the
	// system does not say). On Linux it is that of the largest of the
	// child and the processes it waited for (serve's, for ServeList).
	MaxRSS int64 `json:"max_rss"`
}

// runChild runs job in a child process. self is the command that runs a
// process calling ChildMain first: the scale command, or a test binary
// whose TestMain does. The child's stderr goes to stderr.
func runChild(ctx context.Context, self []string, job Job, stderr io.Writer) (Child, error) {
	spec, err := json.Marshal(job)
	if err != nil {
		return Child{}, fmt.Errorf("%w: %s: %v", ErrMeasure, job.Measure, err)
	}
	cmd := exec.CommandContext(ctx, self[0], self[1:]...)
	cmd.Env = append(os.Environ(), ChildEnv+"="+string(spec))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, stderr
	if err := cmd.Run(); err != nil {
		return Child{}, fmt.Errorf("%w: %s %s: child: %v", ErrMeasure, job.Measure, job.Cassette, err)
	}
	c := Child{MaxRSS: maxRSS(cmd.ProcessState)}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &c.Figures); err != nil {
		return Child{}, fmt.Errorf("%w: %s %s: child's answer %q: %v", ErrMeasure, job.Measure, job.Cassette, lines[len(lines)-1], err)
	}
	return c, nil
}

// ChildMain makes the process a measuring child when ChildEnv is set. It
// runs the job, and writes its figures as one JSON line on stdout. It
// returns the exit code and true. The code is 0, or 1 after writing the
// error on stderr. Without ChildEnv it returns 0, false at once.
func ChildMain() (int, bool) {
	spec, ok := os.LookupEnv(ChildEnv)
	if !ok {
		return 0, false
	}
	var job Job
	if err := json.Unmarshal([]byte(spec), &job); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", ChildEnv, err)
		return 1, true
	}
	f, err := measure(context.Background(), job)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1, true
	}
	b, _ := json.Marshal(f) // a map of float64 always marshals
	fmt.Println(string(b))
	return 0, true
}

// measure runs job in this process.
func measure(ctx context.Context, job Job) (Figures, error) {
	switch job.Measure {
	case Idle:
		return Figures{}, nil
	case Load:
		return measureLoad(job)
	case State:
		return measureState(ctx, job)
	case ServeList, ServeWatchList:
		return measureServe(ctx, job)
	case DecodeList:
		return measureDecodeList(ctx, job)
	case Replay:
		return measureReplay(ctx, job)
	case Recorder:
		return measureRecorder(ctx, job)
	}
	return nil, fmt.Errorf("%w: %s: not a measurement", ErrMeasure, job.Measure)
}

// resources returns the resources the job's informers watch.
func (j Job) resources() []string {
	if len(j.Resources) == 0 {
		return []string{"configmaps", "pods"}
	}
	return j.Resources
}

// tempDir makes a directory for a child's files under the system's temp
// directory.
func tempDir() (string, error) {
	d, err := os.MkdirTemp("", "lwreplay-scale-")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrMeasure, err)
	}
	return d, nil
}

// rounds returns the job's Rounds, 3 unless set.
func (j Job) rounds() int {
	if j.Rounds <= 0 {
		return 3
	}
	return j.Rounds
}

// events returns the job's Events, 100,000 unless set.
func (j Job) events() int {
	if j.Events <= 0 {
		return 100000
	}
	return j.Events
}
