package replayer

import (
	"net/http"

	"github.com/lwreplay/lwreplay/history"
)

// Placeholders until list.go and discovery.go land.

func (s *Server) serveList(w http.ResponseWriter, r *http.Request, q history.Request, l *history.Log) {
	writeStatus(w, r, notFound(r.URL.Path))
}

func (s *Server) serveGet(w http.ResponseWriter, r *http.Request, q history.Request, l *history.Log) {
	writeStatus(w, r, notFound(r.URL.Path))
}

func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request) {
	writeStatus(w, r, notFound(r.URL.Path))
}
