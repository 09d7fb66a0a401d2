package apply

import (
	"strconv"
	"sync"
	"time"
)

// recentWindow bounds how long a write is trusted over a cache that has not
// shown it yet; past it, the cache is believed again (someone may have deleted
// the object right after we wrote it).
const recentWindow = 10 * time.Second

// recentWrites remembers this process's last write of each object. Informers
// deliver our own writes a little later than the response: a reconcile that
// runs in between would otherwise see the old object and write again.
type recentWrites struct {
	mu sync.Mutex
	m  map[string]write
}

type write struct {
	hash string
	rv   uint64
	at   time.Time
}

func newRecentWrites() *recentWrites { return &recentWrites{m: map[string]write{}} }

func (r *recentWrites) record(key, hash, rv string) {
	if r == nil {
		return
	}
	v, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	r.m[key] = write{hash: hash, rv: v, at: now}
	for k, w := range r.m { // keep the map small: old entries are worthless
		if now.Sub(w.at) > recentWindow {
			delete(r.m, k)
		}
	}
}

// awaited reports whether the cache's view (liveRV, "" for not found) predates
// our own recent write of the same desired state, so writing again would
// repeat it. Resource versions are compared as numbers, as etcd issues them.
func (r *recentWrites) awaited(key, hash, liveRV string) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	w, ok := r.m[key]
	r.mu.Unlock()
	if !ok || w.hash != hash || time.Since(w.at) > recentWindow {
		return false
	}
	if liveRV == "" {
		return true
	}
	v, err := strconv.ParseUint(liveRV, 10, 64)
	return err == nil && v < w.rv
}
