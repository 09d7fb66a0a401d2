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

// Package compat holds the compatibility contract with the upstream StarRocks
// operator's API: our CRDs must accept every upstream field path with the same
// type, every upstream example manifest must apply without pruning, and the
// CEL and OpenAPI validation must reject the manifests in testdata/invalid
// with a message that names the field.
package compat
