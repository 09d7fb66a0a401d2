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

package simstarrocks

import (
	"reflect"
	"unsafe"
)

// The followers' replayed states are copies of the leader's. The copy is
// generic so that a field added to the model is copied without anyone
// remembering to: pointers, slices and maps are copied deeply, a pointer
// shared twice stays shared once (the leader is also in the frontends
// list); values of other packages' types (time.Time, Options' interfaces
// and functions) are kept as they are.

var ownPackage = reflect.TypeFor[cluster]().PkgPath()

// deepCopy returns a copy of c that shares no mutable memory with it.
func (c *cluster) deepCopy() *cluster {
	seen := map[uintptr]reflect.Value{}
	return copyValue(reflect.ValueOf(c), seen).Interface().(*cluster)
}

func copyValue(v reflect.Value, seen map[uintptr]reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type().Elem().PkgPath() != ownPackage && v.Type().Elem().Kind() == reflect.Struct {
			return v
		}
		if cp, ok := seen[v.Pointer()]; ok {
			return cp
		}
		cp := reflect.New(v.Type().Elem())
		seen[v.Pointer()] = cp
		cp.Elem().Set(copyValue(v.Elem(), seen))
		return cp
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		cp := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			cp.Index(i).Set(copyValue(v.Index(i), seen))
		}
		return cp
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		cp := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			cp.SetMapIndex(copyValue(it.Key(), seen), copyValue(it.Value(), seen))
		}
		return cp
	case reflect.Array:
		cp := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			cp.Index(i).Set(copyValue(v.Index(i), seen))
		}
		return cp
	case reflect.Struct:
		cp := reflect.New(v.Type()).Elem()
		cp.Set(readable(v))
		if v.Type().PkgPath() != ownPackage {
			return cp
		}
		for i := range v.NumField() {
			writable(cp.Field(i)).Set(copyValue(readable(v.Field(i)), seen))
		}
		return cp
	}
	return readable(v)
}

// readable and writable lift the read-only flag reflect puts on unexported
// fields: the model's fields are all unexported.
func readable(v reflect.Value) reflect.Value {
	if v.CanInterface() {
		return v
	}
	if v.CanAddr() {
		return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	cp := reflect.New(v.Type()).Elem()
	cp.Set(reflect.ValueOf(v.Interface()))
	return cp
}

func writable(v reflect.Value) reflect.Value {
	if v.CanSet() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}
