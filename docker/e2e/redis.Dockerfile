# Test-only stand-in for redis:7-bookworm, from Debian's redis-server (no registry here),
# with the official image's interface: data in /data (the working directory), port 6379,
# redis-cli, runs as redis, and no protected mode when started without a config file.
ARG BASE_IMAGE=basketbench-local/debian:bookworm
FROM ${BASE_IMAGE}
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data \
 && chmod 0755 /usr/local/bin/docker-entrypoint.sh
VOLUME /data
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["redis-server"]
