# receipt-recon as a container image: docker build -t receipt-recon .
#
# The build stage uses the official Swift image of the toolchain the project is tested with, on the
# same Debian release as the runtime stage, and builds with the command docs/operations.md documents:
# the Swift runtime is linked into the binary, so the runtime stage needs no toolchain.
FROM swift:6.3.1-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libpq-dev libcurl4-openssl-dev libssl-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN swift build -c release --static-swift-stdlib --product receipt-recon
RUN install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/receipt-recon" \
    /out/receipt-recon

# The runtime stage holds exactly the README's deploy-host packages.
FROM debian:12-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends libpq5 libcurl4 libssl3 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
# A fixed numeric uid and gid, so that Kubernetes' runAsNonRoot can check the image's user.
RUN groupadd --system --gid 10001 receipt-recon \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin receipt-recon
COPY --from=build /out/receipt-recon /usr/local/bin/receipt-recon
USER 10001:10001
ENTRYPOINT ["receipt-recon"]
CMD ["--help"]
