/*
Copyright 2026 The srscale authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package apply writes desired objects to the API server only when they
// differ from what is there. It knows nothing of StarRocks.
//
// A write is a server-side apply with one field owner, except the first: a
// missing object is made with a plain create, which costs the API server less
// (the create of a gating StatefulSet is what a new cluster waits for); the
// first apply to it later hands the create's fields over to the apply owner
// (see adopt). Whether to write is decided locally, from the informer cache,
// with no request:
//   - the object is missing: create it;
//   - the hash of the desired object, stamped on it at the last write, differs:
//     apply (the spec changed; apply also drops fields no longer desired);
//   - every desired field is present in the live object with the same value:
//     nothing to do. Otherwise someone else changed it (drift): apply.
package apply

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/csaupgrade"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/internal/writeorder"
)

// HashAnnotation holds the hash of the desired object at its last write.
const HashAnnotation = "starrocks.com/desired-hash"

// Action says what Apply did.
type Action string

const (
	// Unchanged means nothing was written.
	Unchanged Action = "unchanged"
	// Created means the object did not exist and was created.
	Created Action = "created"
	// Updated means the desired state changed and was written.
	Updated Action = "updated"
	// Restored means the desired state did not change, but someone else
	// changed the object (drift), and it was written back.
	Restored Action = "restored"
	// Deleted means the object was deleted.
	Deleted Action = "deleted"
	// Failed means the write was sent and failed; the error says why.
	Failed Action = "failed"
)

// Result is the outcome for one object.
type Result struct {
	Kind, Name string
	Action     Action
	// Unrestorable is true when someone else changed the object in a way
	// apply cannot undo (an entry added to a list another manager owns, or a
	// value an admission webhook rewrites): the last restore changed nothing,
	// and it is not tried again until the object or the desired state changes.
	Unrestorable bool
	// Pending is true when the cache has not yet seen this Applier's last write
	// of the object; nothing was sent. Reconcile again shortly to be sure.
	Pending bool
}

// Applier applies desired objects. Client reads from the informer cache and
// writes to the API server (a manager's default client). Create it with New.
type Applier struct {
	Client     client.Client
	FieldOwner string
	// AdoptFrom names field managers whose Update-owned fields become ours
	// the first time we write an object they wrote (see adopt). Server-side
	// apply never removes a field another manager owns, so without this a
	// field they set and we do not want would stay forever, and a list entry
	// we renamed would be doubled.
	AdoptFrom []string
	// Reader reads objects with their managedFields, which the informer cache
	// drops (a manager's API reader); nil reads through Client.
	Reader client.Reader
	// Gating, if set, says which objects readiness waits for: their writes
	// go ahead of others' (see package writeorder). It needs the writeorder
	// transport on the client (options.ApplyToRESTConfig installs it);
	// without it, ApplyAll's other writes wait for the gating ones to
	// complete rather than to be sent.
	Gating func(client.Object) bool
	// Early, if set, says which objects' creates wait for no other owner's
	// gating writes (writeorder.Early); in ApplyAll they still start once
	// their own owner's gating writes are on the wire.
	Early   func(client.Object) bool
	writes  *Recent[string] // desired-state hash of our recent writes
	answers *keyed[answer]
	noops   *keyed[noop]
	hashes  *Hashes  // see With
	flights *flights // writes a Run left in flight
}

// With returns the Applier using h for the desired objects that h has
// converted already (a reconcile's own Hashes): they are not converted again.
func (a Applier) With(h *Hashes) Applier {
	a.hashes = h
	return a
}

// New returns an Applier that remembers its recent writes, so that a cache
// that has not yet seen them does not cause the same write twice.
func New(c client.Client, fieldOwner string) Applier {
	return Applier{Client: c, FieldOwner: fieldOwner, writes: NewRecent[string](), answers: newKeyed[answer](), noops: newKeyed[noop](), flights: &flights{m: map[string]*flight{}}}
}

// Apply makes desired exist as given, writing only on a difference. A
// write of the same object that a Run left in flight (see Begin) is not
// repeated: Apply waits for it and returns its result.
func (a Applier) Apply(ctx context.Context, desired client.Object) (Result, error) {
	gvk, err := a.Client.GroupVersionKindFor(desired)
	if err != nil {
		return Result{}, err
	}
	if f := a.flights.take(objectKey(gvk.Kind, desired)); f != nil {
		return f.wait(ctx)
	}
	return a.apply(ctx, desired, gvk)
}

func objectKey(kind string, o client.Object) string {
	return kind + "/" + o.GetNamespace() + "/" + o.GetName()
}

// apply is Apply without looking for a write in flight.
func (a Applier) apply(ctx context.Context, desired client.Object, gvk schema.GroupVersionKind) (Result, error) {
	res := Result{Kind: gvk.Kind, Name: desired.GetName(), Action: Unchanged}
	if a.gating(desired) {
		ctx = writeorder.Gating(ctx)
	}
	if a.Early != nil && a.Early(desired) {
		ctx = writeorder.Early(ctx)
	}
	want, typed, hash, err := a.hashes.take(desired)
	if err != nil {
		return res, err
	}
	want.SetGroupVersionKind(gvk)

	key := objectKey(gvk.Kind, desired)
	live := desired.DeepCopyObject().(client.Object)
	err = a.Client.Get(ctx, client.ObjectKeyFromObject(desired), live)
	switch {
	case apierrors.IsNotFound(err):
		if a.awaited(key, hash, "") {
			res.Pending = true
			return res, nil
		}
		return a.create(ctx, want, typed, res, key, hash)
	case err != nil:
		return res, fmt.Errorf("reading %s %s: %w", gvk.Kind, desired.GetName(), err)
	default:
		if theirs := foreignController(desired, live); theirs != nil {
			// Another owner's object of the same name (a warehouse's CN
			// StatefulSet and a cluster named <wh>-warehouse): never ours to write.
			res.Action = Failed
			return res, &ExistsError{Kind: gvk.Kind, Name: desired.GetName(), Owner: theirs.Kind + " " + theirs.Name}
		}
		res.Action = Updated
		if live.GetAnnotations()[HashAnnotation] == hash {
			if a.asWritten(key, hash, live.GetResourceVersion()) {
				res.Action = Unchanged
				return res, nil
			}
			liveMap, err := runtime.DefaultUnstructuredConverter.ToUnstructured(live)
			if err != nil {
				return res, err
			}
			if Covers(liveMap, want.Object) {
				res.Action = Unchanged
				return res, nil
			}
			if v, ok := a.noops.get(key); ok && v == (noop{hash: hash, rv: live.GetResourceVersion()}) {
				res.Action, res.Unrestorable = Unchanged, true
				return res, nil
			}
			res.Action = Restored
		}
		if a.awaited(key, hash, live.GetResourceVersion()) {
			res.Action, res.Pending = Unchanged, true
			return res, nil
		}
		if a.mustAdopt(live) {
			if err := a.adopt(ctx, desired); err != nil {
				return res, fmt.Errorf("adopting %s %s: %w", gvk.Kind, desired.GetName(), err)
			}
		}
	}
	sent := want.Object
	if err := a.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(want), client.FieldOwner(a.FieldOwner), client.ForceOwnership); err != nil {
		res.Action = Failed
		return res, fmt.Errorf("applying %s %s: %w", gvk.Kind, desired.GetName(), err)
	}
	if res.Action == Restored && want.GetResourceVersion() == live.GetResourceVersion() {
		// The server changed nothing: this drift is beyond apply's reach.
		a.noops.set(key, noop{hash: hash, rv: live.GetResourceVersion()})
		res.Action, res.Unrestorable = Unchanged, true
		return res, nil
	}
	a.noops.drop(key)
	a.remember(key, hash, sent, want)
	return res, nil
}

// create makes a missing object. It is a plain create, not an apply: the
// API server does less work for it, and it fails, rather than taking over,
// if the object exists after all. Its fields then belong to an Update entry
// of our manager, which adopt hands over to our apply entry before the first
// apply to the object, so that a field later dropped from the desired state
// is removed.
//
// A typed object is created as typed, not as want: the client sends a
// built-in kind as protobuf, which costs the API server less to decode and
// answer than JSON (controller-runtime's client picks protobuf for the
// kinds client-go's scheme knows; a custom resource goes as JSON either
// way). typed is desired as hashed, with the hash stamped and the fields
// Desired strips cleared: the same object as want, in another encoding, so
// the hash annotation is the one a JSON create would have stored.
func (a Applier) create(ctx context.Context, want *unstructured.Unstructured, typed client.Object, res Result, key, hash string) (Result, error) {
	sent := want.Object
	body := client.Object(want)
	if typed != nil {
		asDesired(typed, hash)
		body = typed
	}
	err := a.Client.Create(ctx, body, client.FieldOwner(a.FieldOwner))
	switch {
	case apierrors.IsAlreadyExists(err):
		return a.existing(ctx, want, res, key, hash)
	case err != nil:
		res.Action = Failed
		return res, fmt.Errorf("creating %s %s: %w", res.Kind, res.Name, err)
	}
	res.Action = Created
	reply := want
	if typed != nil {
		// The answer, decoded into typed, as a map for remember's comparison.
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
		reply = &unstructured.Unstructured{Object: m}
		if err != nil { // an answer not to trust; its resourceVersion still counts
			reply.Object = map[string]any{}
			reply.SetResourceVersion(typed.GetResourceVersion())
		}
	}
	a.remember(key, hash, sent, reply)
	return res, nil
}

// asDesired makes o, a copy of a desired object, what Desired sends of it:
// no server-owned metadata, and HashAnnotation set to hash. (A desired
// object's status is empty, and the API server drops a status sent with a
// create.)
func asDesired(o client.Object, hash string) {
	o.SetResourceVersion("")
	o.SetUID("")
	o.SetGeneration(0)
	o.SetCreationTimestamp(metav1.Time{})
	o.SetManagedFields(nil)
	anns := maps.Clone(o.GetAnnotations())
	if anns == nil {
		anns = map[string]string{}
	}
	anns[HashAnnotation] = hash
	o.SetAnnotations(anns)
}

// typedCopy is a copy of desired to create as typed; nil for an
// unstructured one, which is created as the map Desired made.
func typedCopy(desired client.Object) client.Object {
	if _, ok := desired.(runtime.Unstructured); ok {
		return nil
	}
	return desired.DeepCopyObject().(client.Object)
}

// foreignController is live's controller when it is not the one desired
// names; nil when they are the same, or either names none.
func foreignController(desired, live client.Object) *metav1.OwnerReference {
	mine, theirs := metav1.GetControllerOfNoCopy(desired), metav1.GetControllerOfNoCopy(live)
	if mine == nil || theirs == nil || mine.UID == theirs.UID {
		return nil
	}
	return theirs
}

// ExistsError is a create that found an object of that name which the
// desired object's owner does not control: it is not ours to take over.
type ExistsError struct {
	Kind, Name string
	// Owner is the controller of the object found; empty when none.
	Owner string
}

func (e *ExistsError) Error() string {
	owner := "no owner"
	if e.Owner != "" {
		owner = "owner " + e.Owner
	}
	return fmt.Sprintf("%s %s already exists with %s, not this object's; delete or rename it", e.Kind, e.Name, owner)
}

// existing decides about a create the API server refused because the
// object exists although the cache does not show it. Read from the API
// server: gone again meanwhile, decide next time; controlled by the desired
// object's owner (ours, out of the cache's sight because its labels were
// changed), write it whole, which puts the labels back; anyone else's, an
// ExistsError, never a loop of creates.
func (a Applier) existing(ctx context.Context, want *unstructured.Unstructured, res Result, key, hash string) (Result, error) {
	reader := a.Reader
	if reader == nil {
		reader = a.Client
	}
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(want.GroupVersionKind())
	if err := reader.Get(ctx, client.ObjectKeyFromObject(want), live); err != nil {
		if apierrors.IsNotFound(err) {
			res.Pending = true
			return res, nil
		}
		res.Action = Failed
		return res, fmt.Errorf("reading %s %s: %w", res.Kind, res.Name, err)
	}
	mine, theirs := metav1.GetControllerOfNoCopy(want), metav1.GetControllerOfNoCopy(live)
	if mine == nil || theirs == nil || mine.UID != theirs.UID {
		res.Action = Failed
		owner := ""
		if theirs != nil {
			owner = theirs.Kind + " " + theirs.Name
		}
		return res, &ExistsError{Kind: res.Kind, Name: res.Name, Owner: owner}
	}
	if a.mustAdopt(live) {
		if err := a.adopt(ctx, want); err != nil {
			res.Action = Failed
			return res, fmt.Errorf("adopting %s %s: %w", res.Kind, res.Name, err)
		}
	}
	sent := want.Object
	if err := a.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(want), client.FieldOwner(a.FieldOwner), client.ForceOwnership); err != nil {
		res.Action = Failed
		return res, fmt.Errorf("applying %s %s: %w", res.Kind, res.Name, err)
	}
	res.Action = Restored
	a.remember(key, hash, sent, want)
	return res, nil
}

// Forget drops what the Applier remembers of the objects, by kind and name
// (its recent writes and no-op restores): they are gone with their owner,
// and what a process remembers of every object it ever wrote would
// otherwise grow with every cluster created and deleted.
func (a Applier) Forget(objs []client.Object) {
	for _, o := range objs {
		gvk, err := a.Client.GroupVersionKindFor(o)
		if err != nil {
			continue
		}
		key := objectKey(gvk.Kind, o)
		a.flights.drop(key)
		a.writes.Forget(key)
		a.answers.drop(key)
		a.noops.drop(key)
	}
}

// Remembered is how many objects the Applier remembers something of.
func (a Applier) Remembered() int {
	return a.writes.Len() + a.answers.len() + a.noops.len() + a.flights.len()
}

// Unrestorable reports whether the last restore of live, for desired, changed
// nothing, and neither has changed since.
func (a Applier) Unrestorable(live, desired client.Object) bool {
	if a.noops == nil || live == nil || desired == nil {
		return false
	}
	gvk, err := a.Client.GroupVersionKindFor(desired)
	if err != nil {
		return false
	}
	rec, ok := a.noops.get(gvk.Kind + "/" + desired.GetNamespace() + "/" + desired.GetName())
	if !ok || rec.rv != live.GetResourceVersion() {
		return false // the common case, decided without hashing desired
	}
	_, hash, err := Desired(desired)
	return err == nil && rec.hash == hash
}

// noop is a restore that the server answered without a change: the desired
// hash and the resourceVersion it left alone. An entry lives until the
// object or the desired state moves on.
type noop struct{ hash, rv string }

// mustAdopt reports whether fields of live belong to an Update entry of our
// manager (a create of ours) or of an AdoptFrom manager. The operator's cache
// keeps managedFields without their field sets, which is enough to tell;
// with none at all, an object we never wrote (no hash annotation) is adopted.
func (a Applier) mustAdopt(live client.Object) bool {
	mf := live.GetManagedFields()
	if len(mf) == 0 {
		_, ours := live.GetAnnotations()[HashAnnotation]
		return !ours && len(a.AdoptFrom) > 0
	}
	return slices.ContainsFunc(mf, a.adoptable)
}

func (a Applier) adoptable(f metav1.ManagedFieldsEntry) bool {
	return f.Operation == metav1.ManagedFieldsOperationUpdate && f.Subresource == "" &&
		(f.Manager == a.FieldOwner || slices.Contains(a.AdoptFrom, f.Manager))
}

// adopt hands the fields that our own create or the AdoptFrom managers own
// through Update operations on the object (not its subresources) over to our
// apply manager, with client-go's csaupgrade: from then on our apply is their
// single owner, so that a field we do not send is removed rather than kept.
// It runs once per object, before our first apply to one we created or did
// not write; fields owned by other managers (kube-controller-manager's
// revision annotation, say) stay theirs.
func (a Applier) adopt(ctx context.Context, desired client.Object) error {
	reader := a.Reader
	if reader == nil {
		reader = a.Client
	}
	live := desired.DeepCopyObject().(client.Object)
	if err := reader.Get(ctx, client.ObjectKeyFromObject(desired), live); err != nil {
		return err
	}
	managers := sets.New[string]()
	for _, f := range live.GetManagedFields() {
		if f.FieldsV1 == nil {
			// A cached copy with its field sets dropped: a hand-over computed
			// from it would erase every manager's fields.
			return fmt.Errorf("managedFields of %s without field sets; the Applier's Reader must read from the API server", live.GetName())
		}
		if a.adoptable(f) {
			managers.Insert(f.Manager)
		}
	}
	if managers.Len() == 0 {
		return nil
	}
	patch, err := csaupgrade.UpgradeManagedFieldsPatch(live, managers, a.FieldOwner)
	if err != nil || patch == nil {
		return err
	}
	return a.Client.Patch(ctx, live, client.RawPatch(types.JSONPatchType, patch))
}

// remember records our write of key: sent is the body we sent, reply holds
// what the server answered, with the resourceVersion it gave the object.
func (a Applier) remember(key, hash string, sent map[string]any, reply *unstructured.Unstructured) {
	a.writes.Record(key, reply.GetResourceVersion(), hash)
	// A client that decoded the reply into the map we sent would leave
	// nothing to compare: then the answer is not trusted.
	distinct := reply.Object != nil && reflect.ValueOf(reply.Object).UnsafePointer() != reflect.ValueOf(sent).UnsafePointer()
	if rv := reply.GetResourceVersion(); rv != "" && distinct && Covers(reply.Object, sent) {
		a.answers.set(key, answer{rv: rv, hash: hash})
	} else {
		a.answers.drop(key)
	}
}

// awaited reports whether the cache's copy (cachedRV, "" for none) predates
// our own recent write of the same desired state: writing again would repeat it.
func (a Applier) awaited(key, hash, cachedRV string) bool {
	last, ok := a.writes.Ahead(key, cachedRV)
	return ok && last == hash
}

// asWritten reports whether the cache's copy (at cachedRV) is our own write
// of the same desired state, which the server answered with every field
// sent: that copy covers the desired state, and comparing them field by field
// (converting the cached object to a map first, the costliest part of a
// reconcile that writes nothing) would find so again.
func (a Applier) asWritten(key, hash, cachedRV string) bool {
	w, ok := a.answers.get(key)
	return ok && w.rv == cachedRV && w.hash == hash
}

// answer is our last write of an object whose answer held every field
// sent: the resourceVersion the server gave it and the desired state's hash.
// A resourceVersion names one state of one object, so unlike Recent's
// entries these are good for as long as the object stays at it (a follow-up
// reconcile queued behind thousands of new clusters comes after
// RecentWindow): they go when the object is written again without such an
// answer, or forgotten with its cluster.
type answer struct{ rv, hash string }

func (a Applier) gating(o client.Object) bool { return a.Gating != nil && a.Gating(o) }

// ApplyAll applies independent objects in parallel and reports every
// failure. The objects that gate readiness go first: the others start once
// each gating write is on the wire (or turned out not to be needed), so
// that a cluster's Services never reach the API server ahead of its
// StatefulSet; they still go in the same round trip.
func (a Applier) ApplyAll(ctx context.Context, objs []client.Object) ([]Result, error) {
	results := make([]Result, len(objs))
	errs := make([]error, len(objs))
	var wg, sent sync.WaitGroup
	for i, o := range objs {
		if !a.gating(o) {
			continue
		}
		sent.Add(1)
		once := sync.OnceFunc(sent.Done)
		wg.Go(func() {
			defer once()
			results[i], errs[i] = a.Apply(writeorder.OnSend(ctx, once), o)
		})
	}
	sent.Wait()
	for i, o := range objs {
		if !a.gating(o) {
			wg.Go(func() { results[i], errs[i] = a.Apply(ctx, o) })
		}
	}
	wg.Wait()
	return results, errors.Join(errs...)
}

// DeleteAll deletes the objects that exist, in parallel; the garbage collector
// removes what they own. Missing objects cost no request.
func (a Applier) DeleteAll(ctx context.Context, objs []client.Object) ([]Result, error) {
	results := make([]Result, len(objs))
	errs := make([]error, len(objs))
	var wg sync.WaitGroup
	for i, o := range objs {
		wg.Go(func() { results[i], errs[i] = a.delete(ctx, o) })
	}
	wg.Wait()
	return results, errors.Join(errs...)
}

func (a Applier) delete(ctx context.Context, obj client.Object) (Result, error) {
	gvk, err := a.Client.GroupVersionKindFor(obj)
	if err != nil {
		return Result{}, err
	}
	res := Result{Kind: gvk.Kind, Name: obj.GetName(), Action: Unchanged}
	live := obj.DeepCopyObject().(client.Object)
	if err := a.Client.Get(ctx, client.ObjectKeyFromObject(obj), live); err != nil {
		return res, client.IgnoreNotFound(err)
	}
	if live.GetDeletionTimestamp() != nil || foreignController(obj, live) != nil {
		return res, nil // going already, or another owner's of the same name
	}
	uid := live.GetUID()
	err = a.Client.Delete(ctx, live, client.Preconditions{UID: &uid}, client.PropagationPolicy("Background"))
	if err := client.IgnoreNotFound(err); err != nil {
		res.Action = Failed
		return res, fmt.Errorf("deleting %s %s: %w", gvk.Kind, obj.GetName(), err)
	}
	res.Action = Deleted
	return res, nil
}

// Hashes remembers the desired-state hash of objects compared more than
// once, as a reconcile compares each desired StatefulSet with its live copy
// for the rollout order and again for status, and then writes it: Desired
// converts and hashes the whole object, the largest part of the operator's
// CPU profile. It keeps the converted body too, for the one Apply (of an
// Applier given these Hashes, see With) that sends it. An object must not
// change once hashed.
type Hashes struct {
	mu sync.Mutex
	m  map[client.Object]converted
}

// converted is Desired's result for one object, and a copy of the object
// as it was hashed (see Applier.create); body is nil once an Apply took it.
type converted struct {
	body  *unstructured.Unstructured
	typed client.Object
	hash  string
}

// NewHashes returns an empty memo.
func NewHashes() *Hashes { return &Hashes{m: map[client.Object]converted{}} }

// Written reports whether live carries desired as this operator last wrote
// it: live exists and its hash annotation is desired's hash. Of live it reads
// only the annotation; desired it converts and hashes whole, once per Hashes.
func (h *Hashes) Written(live, desired client.Object) bool {
	if live == nil || desired == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.m[desired]
	if !ok {
		body, sum, err := Desired(desired)
		if err != nil {
			return false
		}
		c = converted{body: body, typed: typedCopy(desired), hash: sum}
		h.m[desired] = c
	}
	return live.GetAnnotations()[HashAnnotation] == c.hash
}

// take returns Desired(desired), converted earlier if it was, with a copy
// of desired as hashed (nil for an unstructured one), and keeps only the
// hash: the body goes into one request, whose answer replaces it.
func (h *Hashes) take(desired client.Object) (*unstructured.Unstructured, client.Object, string, error) {
	if h == nil {
		body, sum, err := Desired(desired)
		return body, typedCopy(desired), sum, err
	}
	h.mu.Lock()
	c, ok := h.m[desired]
	if ok && c.body != nil {
		h.m[desired] = converted{hash: c.hash}
	}
	h.mu.Unlock()
	if ok && c.body != nil {
		return c.body, c.typed, c.hash, nil
	}
	body, sum, err := Desired(desired)
	if err == nil && !ok {
		h.mu.Lock()
		h.m[desired] = converted{hash: sum}
		h.mu.Unlock()
	}
	return body, typedCopy(desired), sum, err
}

// Forget drops the hash of desired, which its caller changed after it was
// hashed (a rollout gate setting the partition it decided): the next
// Written hashes it again.
func (h *Hashes) Forget(desired client.Object) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.m, desired)
}

// Desired converts obj to the body of an apply request: no status, no
// server-owned metadata, no nulls, and HashAnnotation set to a hash of the rest.
func Desired(obj client.Object) (*unstructured.Unstructured, string, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, "", err
	}
	delete(m, "status")
	if meta, ok := m["metadata"].(map[string]any); ok {
		for _, k := range []string{"creationTimestamp", "resourceVersion", "uid", "generation", "managedFields"} {
			delete(meta, k)
		}
		if anns, ok := meta["annotations"].(map[string]any); ok {
			delete(anns, HashAnnotation)
		}
	}
	m = pruneNulls(m).(map[string]any)
	body, err := json.Marshal(m) // map keys marshal sorted: the hash is stable
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])[:20]
	u := &unstructured.Unstructured{Object: m}
	anns := u.GetAnnotations()
	if anns == nil {
		anns = map[string]string{}
	}
	anns[HashAnnotation] = hash
	u.SetAnnotations(anns)
	return u, hash, nil
}

// pruneNulls drops nil values and the empty maps they leave behind (a typed
// object's zero creationTimestamp in a pod template, for example).
func pruneNulls(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if e == nil {
				delete(t, k)
				continue
			}
			t[k] = pruneNulls(e)
			if sub, ok := t[k].(map[string]any); ok && len(sub) == 0 {
				delete(t, k)
			}
		}
		return t
	case []any:
		for i := range t {
			t[i] = pruneNulls(t[i])
		}
		return t
	default:
		return v
	}
}

// Covers reports whether live holds every field of want with the same value.
// Only metadata labels, annotations and owner references and the top-level
// content (spec, data, ...) are compared; status and server-set metadata are
// not. Fields the API server adds (defaults) are ignored; a zero value in want
// matches a missing field, as the server omits zero values.
func Covers(live, want map[string]any) bool {
	for k, w := range want {
		switch k {
		case "apiVersion", "kind", "status":
			continue
		case "metadata":
			wm, _ := w.(map[string]any)
			lm, _ := live["metadata"].(map[string]any)
			for _, mk := range []string{"labels", "annotations", "ownerReferences"} {
				if !covers(lm[mk], wm[mk]) {
					return false
				}
			}
		default:
			if !covers(live[k], w) {
				return false
			}
		}
	}
	return true
}

func covers(live, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		l, ok := live.(map[string]any)
		if !ok {
			return live == nil && isZero(w)
		}
		for k, wv := range w {
			lv, present := l[k]
			if !present {
				if isZero(wv) {
					continue
				}
				return false
			}
			if !covers(lv, wv) {
				return false
			}
		}
		return true
	case []any:
		l, ok := live.([]any)
		if !ok {
			return live == nil && len(w) == 0
		}
		if len(l) != len(w) {
			return false
		}
		for i := range w {
			if !covers(l[i], w[i]) {
				return false
			}
		}
		return true
	default:
		if live == nil {
			return isZero(want)
		}
		return scalarEqual(live, want)
	}
}

func isZero(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range t {
			if !isZero(e) {
				return false
			}
		}
		return true
	case []any:
		return len(t) == 0
	case string:
		return t == ""
	case bool:
		return !t
	case int64:
		return t == 0
	case float64:
		return t == 0
	default:
		return false
	}
}

func scalarEqual(a, b any) bool {
	af, aNum := number(a)
	bf, bNum := number(b)
	if aNum && bNum {
		return af == bf
	}
	return a == b
}

func number(v any) (float64, bool) {
	switch t := v.(type) {
	case int64:
		return float64(t), true
	case int:
		return float64(t), true
	case int32:
		return float64(t), true
	case float64:
		return t, true
	}
	return 0, false
}
