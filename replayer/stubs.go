package replayer

import (
	"net/http"

	"github.com/lwreplay/lwreplay/history"
)

// Placeholders, replaced by list.go, watch.go, watchlist.go and discovery.go.

func (s *Server) serveList(w http.ResponseWriter, r *http.Request, q history.Request, l *history.Log) {
	writeStatus(w, r, notFound(r.URL.Path))
}

func (s *Server) serveGet(w http.ResponseWriter, r *http.Request, q history.Request, l *history.Log) {
	writeStatus(w, r, notFound(r.URL.Path))
}

func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request, q history.Request, l *history.Log) {
	writeStatus(w, r, notFound(r.URL.Path))
}

func (s *Server) serveWatchList(w http.ResponseWriter, r *http.Request, q history.Request, l *history.Log) {
	writeStatus(w, r, notFound(r.URL.Path))
}

func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request) {
	writeStatus(w, r, notFound(r.URL.Path))
}
