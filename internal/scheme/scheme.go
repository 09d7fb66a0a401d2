// Package scheme builds the one runtime.Scheme the operator, its tests and its tools share.
package scheme

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// New returns a scheme with the Kubernetes built-in types and starrocks.com/v1.
func New() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(srv1.AddToScheme(s))
	return s
}
