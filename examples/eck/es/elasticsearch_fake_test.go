package es

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
)

// fakeES is an in-process Elasticsearch: the few endpoints of its HTTP API
// that ECK's Elasticsearch controller calls on the paths the cassettes
// drive. ECK reaches it through operator.Parameters.Dialer, its own hook
// for routing the Elasticsearch client (pkg/utils/net.Dialer): every
// dial, whatever the address, is a net.Pipe served by this handler. So
// no socket is opened, and the pipe's channels keep a synctest bubble's
// clock running.
//
// It answers as an empty, green 8.17.0 cluster whose nodes are the
// roster's names: a node shutdown it is asked for is COMPLETE at once (an
// empty cluster has no shard to move). It remembers shutdowns and voting
// exclusions, as Elasticsearch does, and logs every request.
type fakeES struct {
	roster []string // node names, in order

	mu        sync.Mutex
	shutdowns map[string]string // node id → type
	requests  []string          // "METHOD /path", in order
	conns     []net.Conn
	done      bool
}

// newFakeES returns a fake cluster of the nodes named.
func newFakeES(nodes ...string) *fakeES {
	return &fakeES{roster: nodes, shutdowns: map[string]string{}}
}

// nodeID is the node ID the fake gives a node name.
func nodeID(name string) string { return "id-" + name }

// DialContext implements ECK's pkg/utils/net.Dialer: it serves one HTTP
// connection on a pipe, whatever the address.
func (f *fakeES) DialContext(_ context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	f.mu.Lock()
	if f.done {
		f.mu.Unlock()
		return nil, fmt.Errorf("fake elasticsearch: stopped")
	}
	f.conns = append(f.conns, client, server)
	f.mu.Unlock()
	go f.serve(server)
	return client, nil
}

// Start implements controller-runtime's manager.Runnable: it closes every
// connection once the manager stops, so no goroutine outlives the run.
func (f *fakeES) Start(ctx context.Context) error {
	<-ctx.Done()
	f.mu.Lock()
	f.done = true
	conns := f.conns
	f.conns = nil
	f.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
	return nil
}

// serve answers the requests of one connection until it closes.
func (f *fakeES) serve(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	for {
		req, err := http.ReadRequest(r)
		if err != nil {
			return
		}
		rec := httptest.NewRecorder()
		f.ServeHTTP(rec, req)
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
		resp := rec.Result()
		resp.ContentLength = int64(rec.Body.Len())
		if err := resp.Write(conn); err != nil {
			return
		}
	}
}

// Requests returns "METHOD /path" of every request so far.
func (f *fakeES) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// ServeHTTP answers one request of ECK's Elasticsearch client.
func (f *fakeES) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req.Method+" "+req.URL.Path)
	w.Header().Set("Content-Type", "application/json")
	path := strings.Trim(req.URL.Path, "/")
	parts := strings.Split(path, "/")
	switch {
	case path == "":
		reply(w, map[string]any{"cluster_name": "es", "cluster_uuid": "fake-cluster-uuid", "version": map[string]any{"number": "8.17.0"}})
	case path == "_cluster/health":
		reply(w, map[string]any{"cluster_name": "es", "status": "green", "number_of_nodes": len(f.roster), "number_of_data_nodes": len(f.roster)})
	case path == "_license":
		reply(w, map[string]any{"license": map[string]any{"status": "active", "uid": "fake-license", "type": "basic", "issue_date_in_millis": 0, "issued_to": "es", "issuer": "elasticsearch", "start_date_in_millis": -1}})
	case strings.HasPrefix(path, "_nodes") && len(parts) >= 2 && parts[len(parts)-1] == "shutdown":
		f.shutdown(w, req, parts)
	case strings.HasPrefix(path, "_nodes"):
		nodes := map[string]any{}
		for i, n := range f.roster {
			if parts[len(parts)-1] == "_master" && i > 0 {
				break
			}
			nodes[nodeID(n)] = map[string]any{"name": n, "version": "8.17.0", "roles": []string{"master", "data"}}
		}
		reply(w, map[string]any{"nodes": nodes})
	case path == "_cluster/settings" && req.Method == http.MethodGet:
		reply(w, map[string]any{"persistent": map[string]any{}, "transient": map[string]any{}})
	case path == "_cluster/state":
		reply(w, map[string]any{"metadata": map[string]any{"reserved_state": map[string]any{}}})
	case path == "_cat/shards":
		reply(w, []any{})
	case strings.HasPrefix(path, "_internal/desired_nodes") && req.Method == http.MethodGet:
		w.WriteHeader(http.StatusNotFound)
		reply(w, map[string]any{"error": map[string]any{"type": "resource_not_found_exception"}, "status": 404})
	default:
		// Settings, voting exclusions, desired nodes and the rest are
		// acknowledged.
		reply(w, map[string]any{"acknowledged": true})
	}
}

// shutdown answers the node shutdown API: GET, PUT and DELETE of
// /_nodes/shutdown and /_nodes/<id>/shutdown.
func (f *fakeES) shutdown(w http.ResponseWriter, req *http.Request, parts []string) {
	id := ""
	if len(parts) == 3 {
		id = parts[1]
	}
	switch req.Method {
	case http.MethodPut:
		var body struct {
			Type string `json:"type"`
		}
		_ = json.NewDecoder(req.Body).Decode(&body)
		f.shutdowns[id] = strings.ToUpper(body.Type)
		reply(w, map[string]any{"acknowledged": true})
	case http.MethodDelete:
		delete(f.shutdowns, id)
		reply(w, map[string]any{"acknowledged": true})
	default:
		nodes := []any{}
		for _, n := range f.roster {
			t, ok := f.shutdowns[nodeID(n)]
			if !ok || (id != "" && id != nodeID(n)) {
				continue
			}
			nodes = append(nodes, map[string]any{"node_id": nodeID(n), "type": t, "reason": "", "status": "COMPLETE",
				"shard_migration": map[string]any{"status": "COMPLETE"}, "persistent_tasks": map[string]any{"status": "COMPLETE"}, "plugins": map[string]any{"status": "COMPLETE"}})
		}
		reply(w, map[string]any{"nodes": nodes})
	}
}

// reply writes v as the JSON body.
func reply(w http.ResponseWriter, v any) {
	_ = json.NewEncoder(w).Encode(v)
}
