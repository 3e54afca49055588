// Package discovery builds the discovery answers of a replay: /version,
// /api, /apis, /apis/<group>, /api/v1 and /apis/<group>/<version>. It
// answers them as kube-apiserver 1.37 does, in the legacy form or the
// aggregated one (apidiscovery.k8s.io/v2), as the client asks.
//
// Every answer tells what the replay can answer (see served.go). That is
// the resources it serves, each with its status subresource. It serves
// those it has recorded LIST or WATCH traffic of. A replay that takes
// writes also serves the built-in ones from empty (builtin.go). The verbs
// are get, list and watch. A replay that takes writes adds those of the
// writes it answers (NewTakingWrites).
//
// A recorded answer for the path, in the form asked, keeps its shape with
// the rest taken out. Otherwise the answer is built from the recorded
// answers and the served resources (document.go).
//
// It knows nothing of HTTP serving: the replayer's Server asks it for the
// answer to a path and writes it.
//
// Typical use:
//
//	d := discovery.New(h.Discovery, resources, "v1.37.2")
//	if a, ok := d.Answer(r.URL.Path, r.Header.Get("Accept"), r.Host); ok {
//		w.Header().Set("Content-Type", a.ContentType)
//		w.Write(a.Body)
//	}
package discovery

import (
	"encoding/json"
	"maps"
	"mime"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/lwreplay/lwreplay/history"
)

// aggregatedContentType is the media type of an aggregated discovery
// answer, which client-go recognises by its g, v and as parameters.
const aggregatedContentType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// Doc is what discovery tells of a replay: its recorded discovery answers
// merged with the resources it serves. Its documents are built on first
// use; it is safe for concurrent use.
type Doc struct {
	recorded   map[string][]byte
	served     servedSet
	resources  []history.Resource
	gitVersion string

	once sync.Once
	// all merges every recorded discovery answer with the served
	// resources; shown is its part the replay can answer.
	all, shown *document

	// aggregated holds the aggregated answers of /api and /apis, each
	// built once.
	aggregated [2]struct {
		once sync.Once
		body []byte
		err  error
	}
}

// New returns the discovery of a replay. Its recorded discovery answers
// are recorded, by path ("/version", "/api", "/apis/apps/v1"). It serves
// resources, in this order. When no /version is recorded, its /version
// reports gitVersion ("v1.37.2").
//
// Docs of the same inputs are one Doc, built once per process (memo.go).
func New(recorded map[string][]byte, resources []history.Resource, gitVersion string) *Doc {
	return newDoc(recorded, resources, gitVersion, false)
}

// NewTakingWrites is New for a replay that takes writes. Its resources
// list the verbs of the writes it answers too, as kube-apiserver's do:
// create, update, patch, delete, deletecollection; patch and update of
// status. The garbage collector and namespace controller of
// kube-controller-manager act only on resources whose discovery lists
// delete.
func NewTakingWrites(recorded map[string][]byte, resources []history.Resource, gitVersion string) *Doc {
	return newDoc(recorded, resources, gitVersion, true)
}

// newDoc is New, or NewTakingWrites when writes.
func newDoc(recorded map[string][]byte, resources []history.Resource, gitVersion string, writes bool) *Doc {
	return memoized(recorded, resources, gitVersion, writes, func() *Doc {
		d := &Doc{recorded: maps.Clone(recorded), served: servedSet{ids: make(map[history.Resource]bool, len(resources)), writes: writes}, resources: slices.Clone(resources), gitVersion: gitVersion}
		for _, r := range resources {
			d.served.ids[r.ID()] = true
		}
		return d
	})
}

// documents returns the discovery documents, built once: the served
// resources never change.
func (d *Doc) documents() (all, shown *document) {
	d.once.Do(func() {
		d.all = newDocument(d.recorded, d.resources)
		d.shown = d.all.servedBy(d.served)
	})
	return d.all, d.shown
}

// Answer is a discovery answer: a 200 with Body.
type Answer struct {
	// ContentType is the answer's media type.
	ContentType string
	// Body is the answer's JSON.
	Body []byte
	// VaryAccept says the answer depends on the Accept header (the
	// aggregated form of /api and /apis), as its Vary header must say.
	VaryAccept bool
}

// Answer returns the answer to a GET of path (a trailing slash aside)
// with Accept header accept, from a client that dialled host. As in
// kube-apiserver 1.37, /api and /apis come in the aggregated form to
// clients that ask for it first. (It no longer serves v2beta1: such
// clients get the legacy form and fall back.) Its ok is false for a path
// discovery does not answer, which kube-apiserver answers 404.
func (d *Doc) Answer(path, accept, host string) (a Answer, ok bool) {
	p := path
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	if p == "/version" {
		return d.version()
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if (p == "/api" || p == "/apis") && wantsAggregated(accept) {
		body, err := d.aggregatedAnswer(p)
		if err != nil {
			return Answer{}, false
		}
		return Answer{ContentType: aggregatedContentType, Body: body, VaryAccept: true}, true
	}
	_, doc := d.documents()
	var obj any
	switch {
	case p == "/api":
		vs := []string{}
		for _, v := range doc.versions("") {
			vs = append(vs, v.Version)
		}
		obj = metav1.APIVersions{
			TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
			Versions: vs,
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{
				{ClientCIDR: "0.0.0.0/0", ServerAddress: host},
			},
		}
	case p == "/apis":
		gl := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: kindGroupList, APIVersion: "v1"}, Groups: []metav1.APIGroup{}}
		for _, g := range doc.groups {
			if g.Name != "" {
				gl.Groups = append(gl.Groups, legacyGroup(doc, g.Name))
			}
		}
		obj = gl
	case len(segs) == 2 && segs[0] == "apis" && doc.group(segs[1]) != nil && segs[1] != "":
		g := legacyGroup(doc, segs[1])
		g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
		obj = g
	case len(segs) == 2 && segs[0] == "api" && doc.resources[segs[1]] != nil,
		len(segs) == 3 && segs[0] == "apis" && segs[1] != "" && doc.resources[segs[1]+"/"+segs[2]] != nil:
		rl := *doc.resources[strings.Join(segs[1:], "/")]
		if rec, ok := d.recorded[p]; ok && recordedKind(rec).Kind == kindResourceList {
			var recorded metav1.APIResourceList
			if json.Unmarshal(rec, &recorded) == nil {
				if served, ok := servedResourceList(d.served, doc, recorded); ok {
					rl = served
				}
			}
		}
		rl.TypeMeta = metav1.TypeMeta{Kind: kindResourceList, APIVersion: "v1"}
		obj = rl
	default:
		return Answer{}, false
	}
	body, err := json.Marshal(obj)
	if err != nil { // discovery types always marshal; answer as for no document regardless
		return Answer{}, false
	}
	return Answer{ContentType: "application/json", Body: body}, true
}

// legacyGroup renders one group as /apis and /apis/<group> show it.
func legacyGroup(d *document, name string) metav1.APIGroup {
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

// version answers /version: as recorded, or version.Info for the
// replay's gitVersion.
func (d *Doc) version() (Answer, bool) {
	if rec, ok := d.recorded["/version"]; ok {
		return Answer{ContentType: "application/json", Body: rec}, true
	}
	body, err := json.Marshal(versionInfo(d.gitVersion))
	if err != nil {
		return Answer{}, false
	}
	return Answer{ContentType: "application/json", Body: body}, true
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

// Lists reports whether the recorded discovery (or the served resources)
// list res. If so, a request for it that the replay cannot answer is for a
// resource the cassette holds no traffic of, not one that does not exist.
func (d *Doc) Lists(res history.Resource) bool {
	all, _ := d.documents()
	rl := all.resources[res.GroupVersion()]
	return rl != nil && slices.ContainsFunc(rl.APIResources, func(a metav1.APIResource) bool { return a.Name == res.Resource })
}
