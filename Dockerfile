# The operator image for people who build with Docker (make image-docker).
# `make image` builds the same layout without a Docker daemon (test/ociimage):
# FROM scratch, a static binary, CA certificates, non-root user 65532.
FROM golang:1.26 AS build
ARG TARGETOS=linux
ARG TARGETARCH
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY api/ api/
COPY cmd/ cmd/
COPY internal/ internal/
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags "-s -w" -o /out/starrocks-operator ./cmd/starrocks-operator
RUN mkdir -p /out/etc /out/home/nonroot /out/tmp \
 && printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > /out/etc/passwd \
 && printf 'root:x:0:\nnonroot:x:65532:\n' > /out/etc/group \
 && chown 65532:65532 /out/home/nonroot && chmod 0700 /out/home/nonroot && chmod 1777 /out/tmp

FROM scratch
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="starrocks-operator" \
      org.opencontainers.image.description="Kubernetes operator for StarRocks clusters (starrocks.com/v1), built for many clusters" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/srscale/starrocks-operator" \
      org.opencontainers.image.version="$VERSION" \
      org.opencontainers.image.revision="$REVISION"
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/etc/ /etc/
COPY --from=build /out/home/ /home/
COPY --from=build /out/tmp/ /tmp/
COPY --from=build /out/starrocks-operator /starrocks-operator
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
USER 65532:65532
WORKDIR /
ENTRYPOINT ["/starrocks-operator"]
