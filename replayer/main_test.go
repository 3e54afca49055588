package replayer

import (
	"os"
	"testing"

	"github.com/lwreplay/lwreplay/internal/testutil"
)

func TestMain(m *testing.M) {
	testutil.QuietKlog() // client-go logs nothing: no test has to silence it
	os.Exit(m.Run())
}
