/// The OpenAPI 3.1 document served at `/openapi.yaml` (docs/openapi.yaml is this text, written by `eddy-server openapi`).
#if Tools
package enum OpenAPIDocument {
    /// The YAML text.
    package static let yaml = pathsAndResponses + "\n" + schemas

    /// The document up to its schemas: info, paths, security schemes, parameters and responses.
    static let pathsAndResponses = #"""
openapi: 3.1.0
info:
  title: Eddy sync API
  version: 1.0.0
  description: |
    Turbulence report sync between Eddy clients and eddy-server. JSON over HTTP(S); responses over 1 KiB
    are gzip-compressed when the client sends `Accept-Encoding: gzip`. Times are Unix epoch seconds, EDR is
    m^(2/3) s^-1, coordinates are WGS-84 degrees. See docs/protocol.md.

    Errors answer with a JSON `ErrorBody` whose `error` is a stable code: a path no route has answers 404
    `notFound`, a known path asked with another method 405 `methodNotAllowed` with `Allow`, a missing or malformed
    bearer token 401, an unusable API key 403 (`keyRevoked`, `keyExpired`, `airlineMismatch`), a client below the
    server's `--min-client-version` 426 `clientTooOld` and a malformed `X-Eddy-Client-Version` 400 `badRequest`.
servers:
  - url: http://127.0.0.1:8080
security:
  - bearer: []
paths:
  /health:
    get:
      summary: Liveness probe.
      security: []
      responses:
        '200':
          description: Alive.
          content:
            text/plain:
              schema: {type: string}
        '405': {$ref: '#/components/responses/MethodNotAllowed'}
  /healthz:
    get:
      summary: Liveness probe (the process is up; asks nothing of the database).
      security: []
      responses:
        '200':
          description: Alive.
          content:
            text/plain:
              schema: {type: string}
        '405': {$ref: '#/components/responses/MethodNotAllowed'}
  /readyz:
    get:
      summary: Readiness probe (the database answers a trivial query).
      security: []
      responses:
        '200':
          description: Ready to serve.
          content:
            text/plain:
              schema: {type: string}
        '405': {$ref: '#/components/responses/MethodNotAllowed'}
        '503':
          description: The database does not answer; take this instance out of the load balancer.
          content:
            text/plain:
              schema: {type: string}
  /metrics:
    get:
      summary: Prometheus metrics (text exposition format 0.0.4); absent (404) with `eddy-server serve --no-metrics`.
      security: []
      responses:
        '200':
          description: Counters, gauges and latency histograms (docs/fleet-server.md).
          content:
            text/plain:
              schema: {type: string}
        '404': {$ref: '#/components/responses/NotFound'}
        '405': {$ref: '#/components/responses/MethodNotAllowed'}
  /v1/tick:
    get:
      summary: Current server tick.
      security: []
      parameters:
        - {$ref: '#/components/parameters/ClientVersion'}
      responses:
        '200':
          description: The tick.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/TickResponse'}
        '400': {$ref: '#/components/responses/BadRequest'}
        '405': {$ref: '#/components/responses/MethodNotAllowed'}
        '413': {$ref: '#/components/responses/Error'}
        '426': {$ref: '#/components/responses/Error'}
  /v1/session:
    post:
      summary: Start a session with an API key.
      security: []
      parameters:
        - {$ref: '#/components/parameters/ClientVersion'}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/SessionStartRequest'}
      responses:
        '200':
          description: Session started.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/SessionStartResponse'}
        '400': {$ref: '#/components/responses/BadRequest'}
        '401': {$ref: '#/components/responses/Error'}
        '403': {$ref: '#/components/responses/Forbidden'}
        '405': {$ref: '#/components/responses/MethodNotAllowed'}
        '413': {$ref: '#/components/responses/Error'}
        '426': {$ref: '#/components/responses/Error'}
        '503': {$ref: '#/components/responses/StorageFailed'}
  /v1/reports:
    post:
      summary: Upload own tile reports (idempotent by report id).
      parameters:
        - {$ref: '#/components/parameters/ClientVersion'}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/ReportBatch'}
      responses:
        '200':
          description: Which reports the server now holds (sent only after the database committed them).
          content:
            application/json:
              schema: {$ref: '#/components/schemas/ReportBatchAck'}
        '400': {$ref: '#/components/responses/BadRequest'}
        '401': {$ref: '#/components/responses/Error'}
        '403': {$ref: '#/components/responses/Forbidden'}
        '405': {$ref: '#/components/responses/MethodNotAllowed'}
        '413': {$ref: '#/components/responses/Error'}
        '426': {$ref: '#/components/responses/Error'}
        '429': {$ref: '#/components/responses/RateLimited'}
        '503': {$ref: '#/components/responses/StorageFailed'}
  /v1/fetch:
    post:
      summary: Delta fetch of one data type for one area since a server tick.
      parameters:
        - {$ref: '#/components/parameters/ClientVersion'}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/DeltaFetchRequest'}
      responses:
        '200':
          description: |
            Items changed since `sinceTick`, or everything when `full`; one page of them when `nextCursor` is set (ask
            again with `cursor`). At most `pageSize` items (and never more than the server's limit, 10,000 by default).
          content:
            application/json:
              schema: {$ref: '#/components/schemas/DeltaFetchResponse'}
        '400':
          description: |
            Error (see `error`): `badRequest` (a malformed body or `X-Eddy-Client-Version` header), or `answerTooLarge`
            for a request without `pageSize` whose answer would exceed the server's page limit.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/ErrorBody'}
        '401': {$ref: '#/components/responses/Error'}
        '403': {$ref: '#/components/responses/Forbidden'}
        '405': {$ref: '#/components/responses/MethodNotAllowed'}
        '409':
          description: '`cursorExpired`: a new nowcast issue replaced the one the pages belong to; fetch again without `cursor`.'
          content:
            application/json:
              schema: {$ref: '#/components/schemas/ErrorBody'}
        '413': {$ref: '#/components/responses/Error'}
        '426': {$ref: '#/components/responses/Error'}
        '429': {$ref: '#/components/responses/RateLimited'}
        '503': {$ref: '#/components/responses/StorageFailed'}
  /v1/position:
    post:
      summary: Upload own position for the live-flights layer, optionally with the aircraft's fleet altitude offset.
      parameters:
        - {$ref: '#/components/parameters/ClientVersion'}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/PositionUpload'}
      responses:
        '200':
          description: Stored.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/TickResponse'}
        '400': {$ref: '#/components/responses/BadRequest'}
        '401': {$ref: '#/components/responses/Error'}
        '403': {$ref: '#/components/responses/Forbidden'}
        '405': {$ref: '#/components/responses/MethodNotAllowed'}
        '413': {$ref: '#/components/responses/Error'}
        '426': {$ref: '#/components/responses/Error'}
        '429': {$ref: '#/components/responses/RateLimited'}
        '503': {$ref: '#/components/responses/StorageFailed'}
  /map:
    get:
      summary: The fleet map page, self-contained HTML (docs/maps.md).
      description: |
        The last hours' reports, worst per tile, as hexagons coloured by severity on an embedded basemap with an
        altitude filter; no further request. A browser opens `/map?key=API_KEY` once: the server opens a session
        for the key's airline and answers 303 to `/map` with the session token in the cookie `eddy_map`
        (HttpOnly, SameSite=Strict, Path=/map). Later requests carry the cookie, or `Authorization: Bearer <token>`.
      security:
        - bearer: []
        - mapCookie: []
        - mapKey: []
      parameters:
        - {$ref: '#/components/parameters/ClientVersion'}
        - {name: hours, in: query, required: false, description: "History window in hours (default 6).", schema: {type: number, enum: [0.5, 1, 2, 4, 6]}}
        - {name: viewer, in: query, required: false, description: "Viewer class for severity (default medium).", schema: {type: string, enum: [small, medium, large]}}
        - {name: min_layer, in: query, required: false, description: "Lowest layer in thousands of feet.", schema: {type: integer, minimum: -2, maximum: 99}}
        - {name: max_layer, in: query, required: false, description: "Highest layer in thousands of feet.", schema: {type: integer, minimum: -2, maximum: 99}}
      responses:
        '200':
          description: The page.
          content:
            text/html:
              schema: {type: string}
        '303':
          description: The API key was accepted; go to `/map` with the session cookie.
          headers:
            Location: {schema: {type: string}}
            Set-Cookie: {schema: {type: string}}
        '400': {$ref: '#/components/responses/BadRequest'}
        '401':
          description: No session, an expired one, or an unknown API key.
          content:
            text/plain:
              schema: {type: string}
        '403': {$ref: '#/components/responses/Forbidden'}
        '405': {$ref: '#/components/responses/MethodNotAllowed'}
        '413': {$ref: '#/components/responses/Error'}
        '426': {$ref: '#/components/responses/Error'}
        '429': {$ref: '#/components/responses/RateLimited'}
        '503': {$ref: '#/components/responses/StorageFailed'}
components:
  securitySchemes:
    bearer:
      type: http
      scheme: bearer
    mapCookie:
      type: apiKey
      in: cookie
      name: eddy_map
    mapKey:
      type: apiKey
      in: query
      name: key
  parameters:
    ClientVersion:
      name: X-Eddy-Client-Version
      in: header
      required: false
      description: |
        The client's version (every Eddy client sends it). Below the server's `--min-client-version` the answer is 426
        `clientTooOld`; without the header too once that minimum is above 1.0.0; a value that is not a version is 400
        `badRequest`.
      schema: {type: string, pattern: '^[0-9]{1,6}(\.[0-9]{1,6}){0,2}$'}
  responses:
    Error:
      description: Error (see `error` for the code).
      content:
        application/json:
          schema: {$ref: '#/components/schemas/ErrorBody'}
    BadRequest:
      description: |
        `badRequest`: the body, a parameter or the `X-Eddy-Client-Version` header (not MAJOR[.MINOR[.PATCH]], e.g.
        `garbage`) is malformed; `message` says which.
      content:
        application/json:
          schema: {$ref: '#/components/schemas/ErrorBody'}
    Forbidden:
      description: |
        The API key behind the request cannot be used: `keyRevoked` (the operator revoked it), `keyExpired` (its
        `--expires-in-days` passed), or `airlineMismatch` (it belongs to another airline). Recording must stop until the
        device has a valid key.
      content:
        application/json:
          schema: {$ref: '#/components/schemas/ErrorBody'}
          examples:
            keyRevoked: {value: {error: keyRevoked, message: 'the API key or company has been deactivated; recording must stop'}}
            keyExpired: {value: {error: keyExpired, message: 'the API key has expired; recording must stop until the operator issues a new key'}}
            airlineMismatch: {value: {error: airlineMismatch, message: 'the API key does not belong to this airline'}}
    NotFound:
      description: '`notFound`: no route has this path (or `/metrics` with `--no-metrics`).'
      content:
        application/json:
          schema: {$ref: '#/components/schemas/ErrorBody'}
          example: {error: notFound, message: 'no such path: /v1/nothing; see /openapi.yaml'}
    MethodNotAllowed:
      description: '`methodNotAllowed`: the path takes other methods, listed in `Allow`.'
      headers:
        Allow:
          required: true
          description: The methods the path takes, comma-separated.
          schema: {type: string}
      content:
        application/json:
          schema: {$ref: '#/components/schemas/ErrorBody'}
          example: {error: methodNotAllowed, message: '/v1/fetch takes POST, not GET'}
    StorageFailed:
      description: |
        `storageFailed`: the server's database did not complete the request (a query, the connection or the commit
        failed). Nothing of the request was acknowledged; retry later with back-off (uploads are idempotent by report id).
      content:
        application/json:
          schema: {$ref: '#/components/schemas/ErrorBody'}
    RateLimited:
      description: Too many requests; retry after the `Retry-After` seconds.
      headers:
        Retry-After:
          schema: {type: string}
      content:
        application/json:
          schema: {$ref: '#/components/schemas/ErrorBody'}
"""#
}
#endif
