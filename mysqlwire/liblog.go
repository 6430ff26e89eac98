package mysqlwire

import (
	"fmt"
	"log"
	"strings"
	"sync"
	"sync/atomic"

	vlog "github.com/dolthub/vitess/go/vt/log"
)

// The protocol library logs through package variables of its own
// (github.com/dolthub/vitess/go/vt/log), to the standard logger unless
// told otherwise: its warnings and errors go to the logger of the newest
// Server instead, marked as the MySQL listener's, and its informational
// lines nowhere. A connection its client or the server closed is not
// worth a line ("use of closed network connection", EOF).
var (
	libLogger atomic.Pointer[log.Logger]
	libLogSet sync.Once
)

// routeLibraryLog sends the library's log to l.
func routeLibraryLog(l *log.Logger) {
	libLogSet.Do(func() {
		vlog.Info = func(...any) {}
		vlog.Infof = func(string, ...any) {}
		vlog.Warning, vlog.Error = libPrint, libPrint
		vlog.Warningf, vlog.Errorf = libPrintf, libPrintf
	})
	libLogger.Store(l)
}

func libPrint(v ...any) {
	if l := libLogger.Load(); l != nil {
		libLine(l, strings.TrimSpace(fmt.Sprint(v...)))
	}
}

func libPrintf(format string, v ...any) {
	if l := libLogger.Load(); l != nil {
		libLine(l, strings.TrimSpace(fmt.Sprintf(format, v...)))
	}
}

// libLine logs one line of the library's, unless it only says that a
// connection was closed, or that a statement could not be prepared
// (logged by ComPrepare as any failed statement is).
func libLine(l *log.Logger, line string) {
	if strings.Contains(line, "use of closed network connection") || strings.HasSuffix(line, ": EOF") ||
		strings.HasPrefix(line, "unable to prepare query:") {
		return
	}
	l.Printf("mysql: %s", line)
}
