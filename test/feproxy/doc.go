// Package feproxy tests the FE proxy's generated nginx.conf with a real nginx
// in front of Go servers that answer like StarRocks FE and BE.
package feproxy
