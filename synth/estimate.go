package synth

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Size is what a generated cassette is estimated to take.
type Size struct {
	// FileBytes is the size of the cassette file.
	FileBytes int64
	// MemoryBytes is the peak memory (resident) of writing the cassette
	// with WriteCassette, as lwreplay synth does. It counts the objects
	// that exist while it generates (the initial ones, and those the
	// events add). It counts the largest LIST page, and the watch
	// frames' arrival offsets. The events themselves go to disk.
	MemoryBytes int64
	// InMemoryBytes is the peak memory of Generate, then File.Save: the
	// whole cassette is held, some 14 bytes per byte of file.
	InMemoryBytes int64
}

// kindBytes is what one object of a kind takes in a cassette file on
// average, in the initial LIST and as a watch event. Measured on 20,000
// of each: pods 2,289 and 1,937 bytes, configmaps 502 and 691. It also
// holds the resident memory one live object takes while WriteCassette
// generates. Measured on 50,000 with LIST pages of 500: pods 15.0 KiB,
// configmaps 3.0 KiB, with the garbage collector's headroom.
var kindBytes = map[string]struct{ object, event, live float64 }{
	"pods":       {object: 2300, event: 1950, live: 16 << 10},
	"configmaps": {object: 520, event: 700, live: 4 << 10},
}

const (
	// bookmarkBytes is what a BOOKMARK frame takes in a cassette file.
	bookmarkBytes = 200
	// memoryPerFileByte is the peak memory of Generate and File.Save per
	// byte of cassette file. It measured 13.2 for 100,000 objects (140
	// MB file, 1.85 GB resident), 8.4 for 100,000 events, 10.6 for
	// 20,000 pods.
	memoryPerFileByte = 14
	// liveObjectsPerEvent is how many objects each event adds on average.
	// A quarter of them create one; some 15% delete one. (Pods' graceful
	// deletions take two events.)
	liveObjectsPerEvent = 0.1
	// memoryPerPageByte is WriteCassette's peak memory per byte of its
	// largest LIST page, which is encoded whole. It measured 1.7 to 2.8
	// for one-page LISTs of 50,000 and 100,000 objects.
	memoryPerPageByte = 3.5
	// memoryPerFrame is WriteCassette's memory per watch frame: its
	// arrival offset, held until the watch is written, and the offset's
	// text in the watch's header.
	memoryPerFrame = 64
	// baseMemory is the resident size of lwreplay before it generates.
	baseMemory = 64 << 20
)

// EstimateSize estimates the cassette file and the memory that
// WriteCassette, and Generate and saving its cassette, take for o,
// without generating anything. The estimate is an average over the
// kinds; objects and events are spread over them evenly. For the default
// kinds it is within a quarter of the real file size. The memory
// estimates are above the peak resident size measured.
func EstimateSize(o GenerateOptions) Size {
	ks := o.Kinds
	if ks == nil {
		ks = kinds
	}
	objects, events := float64(max(o.Objects, 0)), float64(max(o.Events, 0))
	var object, event, live, page float64
	for _, k := range ks {
		kb := kindBytes[k]
		share := 1 / float64(len(ks))
		object += kb.object * share
		event += kb.event * share
		live += kb.live * share
		n := objects * share
		if o.PageSize > 0 {
			n = min(n, float64(o.PageSize))
		}
		page = max(page, n*kb.object)
	}
	file := objects*object + events*event
	frames := events
	if o.BookmarkEvery > 0 {
		file += float64(o.Events/o.BookmarkEvery) * bookmarkBytes
		frames += float64(o.Events / o.BookmarkEvery)
	}
	stream := baseMemory + live*(objects+liveObjectsPerEvent*events) + memoryPerPageByte*page + memoryPerFrame*frames
	return Size{
		FileBytes:     clampInt64(file),
		MemoryBytes:   clampInt64(stream),
		InMemoryBytes: clampInt64(baseMemory + memoryPerFileByte*file),
	}
}

// clampInt64 converts f to int64, saturating at the largest int64.
func clampInt64(f float64) int64 {
	if f >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(f)
}

// bytesText says a byte count in binary units: "512 B", "1.5 GiB",
// "133 MiB".
func bytesText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n), -1
	for f >= unit && i < 5 {
		f /= unit
		i++
	}
	digits := 1
	if f >= 100 {
		digits = 0
	}
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', digits, 64), ".0") + " " + string("KMGTPE"[i]) + "iB"
}
