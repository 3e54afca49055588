package harness

import (
	"flag"
	"io"
	"sync"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

// quiet holds what QuietClientGo changed, while any caller holds it.
var quiet struct {
	sync.Mutex
	holders  int
	handlers []utilruntime.ErrorHandler
	klog     klog.State
}

// klogFlags are the klog settings QuietClientGo changes, with the values
// it sets.
var klogFlags = map[string]string{"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL"}

// QuietClientGo silences client-go's logging and turns off apimachinery's
// error handlers until every caller has called the restore func it
// returns. A test binary that never does stays quiet. The handlers must
// go. HandleError sleeps until a minimum period has passed since a time
// taken at package init. A synctest bubble's clock starts in 2000, so
// inside one the first error would freeze the reflector for decades of
// virtual time. Observe holds it for each run. The last restore puts back
// the handlers and every klog setting as they were (flags and outputs).
func QuietClientGo() (restore func()) {
	quiet.Lock()
	defer quiet.Unlock()
	if quiet.holders == 0 {
		quiet.handlers = utilruntime.ErrorHandlers
		utilruntime.ErrorHandlers = nil
		quiet.klog = klog.CaptureState()
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		for name, v := range klogFlags {
			_ = fs.Set(name, v)
		}
		klog.SetOutput(io.Discard)
	}
	quiet.holders++
	var once sync.Once
	return func() { once.Do(unquiet) }
}

// unquiet gives up one hold of QuietClientGo, restoring client-go's
// settings with the last.
func unquiet() {
	quiet.Lock()
	defer quiet.Unlock()
	quiet.holders--
	if quiet.holders > 0 {
		return
	}
	utilruntime.ErrorHandlers = quiet.handlers
	quiet.klog.Restore()
}
