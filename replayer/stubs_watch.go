package replayer

import (
	"net/http"

	"github.com/lwreplay/lwreplay/history"
)

// Placeholders until watch.go and watchlist.go land.

func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request, q history.Request, l *history.Log) {
	writeStatus(w, r, notFound(r.URL.Path))
}

func (s *Server) serveWatchList(w http.ResponseWriter, r *http.Request, q history.Request, l *history.Log) {
	writeStatus(w, r, notFound(r.URL.Path))
}
