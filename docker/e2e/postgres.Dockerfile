# Test-only stand-in for postgres:16-bookworm, from Debian's PostgreSQL 15 (no registry here),
# with the official image's interface: POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB on
# first start, data in /var/lib/postgresql/data, port 5432, pg_isready, runs as postgres.
# Few instructions: with the vfs storage driver every one copies the whole image.
ARG BASE_IMAGE=basketbench-local/debian:bookworm
FROM ${BASE_IMAGE}
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-common \
 && sed -ri 's/#?\s*create_main_cluster\s*=.*/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
 && chmod 700 /var/lib/postgresql/data \
 && chmod 0755 /usr/local/bin/docker-entrypoint.sh
ENV LANG=C.UTF-8 \
    PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
