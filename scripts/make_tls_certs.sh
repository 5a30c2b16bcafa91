#!/usr/bin/env bash
# Certificates for a PostgreSQL test cluster with TLS (docs/fleet-server.md "Database TLS and secrets"), made in DIR:
# a CA (ca.crt, ca.key), a server certificate for DNS localhost signed by it (server.crt, server.key, mode 0600), and
# another CA that signed nothing (other.crt, other.key) for the wrong-CA case. RSA 2048, valid 2 days.
# Used by PostgresTLSTests and scripts/measure_tls_config.py. Usage: scripts/make_tls_certs.sh DIR
set -euo pipefail
cd "${1:?usage: make_tls_certs.sh DIR}"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj '/CN=Eddy test CA' -keyout ca.key -out ca.crt 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj '/CN=Other CA' -keyout other.key -out other.crt 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj '/CN=localhost' -keyout server.key -out server.csr 2>/dev/null
printf 'subjectAltName=DNS:localhost\n' > san.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext -out server.crt 2>/dev/null
chmod 600 server.key
