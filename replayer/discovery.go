package replayer

import (
	"encoding/json"
	"mime"
	"net/http"
	"runtime"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/lwreplay/lwreplay/replayer/internal/status"
)

// aggregatedContentType is the media type of an aggregated discovery
// answer, which client-go recognises by its g, v and as parameters.
const aggregatedContentType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// serveDiscovery answers the non-resource paths clients ask: /version, /api,
// /apis, /apis/<group>, /api/v1 and /apis/<group>/<version>. /api and /apis
// come in the aggregated form (apidiscovery.k8s.io/v2) to clients that ask
// for it first, as kube-apiserver 1.37 does (it no longer serves v2beta1:
// such clients get the legacy form and fall back). Every answer tells what
// the history can answer (see discovery_served.go): a recorded answer for
// the path, in the form asked, keeps its shape with the resources the
// history has no traffic of taken out; otherwise the answer is built from
// the recorded answers and the history's resources. Any other path is a
// 404.
func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	if p == "/version" {
		s.serveVersion(w, r)
		return
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if (p == "/api" || p == "/apis") && wantsAggregated(r.Header.Get("Accept")) {
		body, err := s.aggregatedAnswer(p)
		if err != nil {
			status.Write(w, status.NotFound())
			return
		}
		w.Header().Set("Vary", "Accept")
		writeJSONAnswer(w, r, aggregatedContentType, body)
		return
	}
	_, d := s.discovery()
	var obj any
	switch {
	case p == "/api":
		vs := []string{}
		for _, v := range d.versions("") {
			vs = append(vs, v.Version)
		}
		obj = metav1.APIVersions{
			TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
			Versions: vs,
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{
				{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host},
			},
		}
	case p == "/apis":
		gl := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: kindGroupList, APIVersion: "v1"}, Groups: []metav1.APIGroup{}}
		for _, g := range d.groups {
			if g.Name != "" {
				gl.Groups = append(gl.Groups, legacyGroup(d, g.Name))
			}
		}
		obj = gl
	case len(segs) == 2 && segs[0] == "apis" && d.group(segs[1]) != nil && segs[1] != "":
		g := legacyGroup(d, segs[1])
		g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
		obj = g
	case len(segs) == 2 && segs[0] == "api" && d.resources[segs[1]] != nil,
		len(segs) == 3 && segs[0] == "apis" && segs[1] != "" && d.resources[segs[1]+"/"+segs[2]] != nil:
		rl := *d.resources[strings.Join(segs[1:], "/")]
		if rec, ok := s.h.Discovery[p]; ok && recordedKind(rec).Kind == kindResourceList {
			var recorded metav1.APIResourceList
			if json.Unmarshal(rec, &recorded) == nil {
				if served, ok := servedResourceList(s.h, d, recorded); ok {
					rl = served
				}
			}
		}
		rl.TypeMeta = metav1.TypeMeta{Kind: kindResourceList, APIVersion: "v1"}
		obj = rl
	default:
		status.Write(w, status.NotFound())
		return
	}
	body, err := json.Marshal(obj)
	if err != nil {
		status.Write(w, status.NotFound())
		return
	}
	writeJSONAnswer(w, r, "application/json", body)
}

// legacyGroup renders one group as /apis and /apis/<group> show it.
func legacyGroup(d *discoveryDoc, name string) metav1.APIGroup {
	g := *d.group(name)
	g.Versions = d.versions(name)
	return g
}

// wantsAggregated reports whether the client's first acceptable media type
// is aggregated discovery v2 (kube-apiserver skips the removed v2beta1 and
// media types it does not serve).
func wantsAggregated(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if mt != "application/json" && mt != "application/*" && mt != "*/*" {
			continue
		}
		if params["as"] == "" {
			return false
		}
		if params["g"] == "apidiscovery.k8s.io" && params["v"] == "v2" && params["as"] == kindAggregated {
			return true
		}
	}
	return false
}

// serveVersion answers /version: as recorded, or version.Info for the
// server's gitVersion.
func (s *Server) serveVersion(w http.ResponseWriter, r *http.Request) {
	if rec, ok := s.h.Discovery["/version"]; ok {
		writeJSONAnswer(w, r, "application/json", rec)
		return
	}
	body, err := json.Marshal(versionInfo(s.opts.gitVersion))
	if err != nil {
		status.Write(w, status.NotFound())
		return
	}
	writeJSONAnswer(w, r, "application/json", body)
}

// versionInfo is kube-apiserver's /version answer for gitVersion
// ("v1.37.2"): major and minor taken from it, emulating the same version
// and compatible with the previous minor.
func versionInfo(gitVersion string) version.Info {
	major, minor := "", ""
	parts := strings.SplitN(strings.TrimPrefix(gitVersion, "v"), ".", 3)
	if len(parts) >= 2 {
		major = parts[0]
		minor = parts[1]
		if i := strings.IndexFunc(minor, func(c rune) bool { return c < '0' || c > '9' }); i >= 0 {
			minor = minor[:i]
		}
	}
	info := version.Info{
		Major: major, Minor: minor, EmulationMajor: major, EmulationMinor: minor,
		GitVersion: gitVersion, GitCommit: "0000000000000000000000000000000000000000", GitTreeState: "clean",
		BuildDate: "1970-01-01T00:00:00Z", GoVersion: runtime.Version(), Compiler: runtime.Compiler,
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
	if n, err := strconv.Atoi(minor); err == nil && n > 0 {
		info.MinCompatibilityMajor, info.MinCompatibilityMinor = major, strconv.Itoa(n-1)
	}
	return info
}
