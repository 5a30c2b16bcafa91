#if Tools
import EddyProtocol
import EddySupport
import Foundation
import HTTPTypes
import Logging
package import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat

/// HTTP framing of `SyncService`: the routes and the middleware chain in front of them.
///
/// Every `/v1` route runs behind, outermost first: `RequestLogMiddleware` → `ErrorMappingMiddleware` →
/// `FaultInjectionMiddleware` (test hooks on; not on the `/v1/_test` routes) → `BodyLimitMiddleware` →
/// `ClientVersionMiddleware` → `AuthenticationMiddleware` (reports, fetch, position). Handlers only decode,
/// call the service and encode. `/health` and `/openapi.yaml` run without middleware; `/map` runs behind the `/v1` chain up to
/// `ClientVersionMiddleware` and authenticates itself (`MapRoute`).
package struct HTTPRoutes: Sendable {
    /// The service the routes call.
    package let service: SyncService

    /// What `GET /readyz` asks (nil: the service's database answers a trivial query).
    package let readiness: ReadinessProbe?

    /// Creates the routes of `service`.
    package init(service: SyncService, readiness: ReadinessProbe? = nil) {
        self.service = service
        self.readiness = readiness
    }

    /// Builds the router.
    package func router() -> Router<EddyRequestContext> {
        let router = Router(context: EddyRequestContext.self)
        // Request ids and request metrics around every route (Observability.swift); /healthz, /readyz, /metrics.
        let metrics = service.options.metricsEnabled ? service.metrics : nil
        router.add(middleware: ObservabilityMiddleware(metrics: metrics))
        router.add(middleware: UnroutedMiddleware(methods: Self.methods(testHooks: service.options.testHooks, metrics: metrics != nil)))
        OperationsRoutes.add(
            to: router, readiness: readiness ?? ReadinessProbe { [database = service.database] in try await database.checkReady() },
            metrics: metrics, logger: service.logger)
        router.get("/health") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        router.get("/openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml)))
        }
        let service = service
        let options = service.options

        let api = router.group()
            .add(middleware: RequestLogMiddleware(logger: service.logger, level: options.accessLog ? .info : .debug))
            .add(middleware: ErrorMappingMiddleware(logger: service.logger))
        if let metrics { api.add(middleware: RejectionMetricsMiddleware(metrics: metrics)) }
        if options.testHooks {
            let hooks = api.group()
                .add(middleware: BodyLimitMiddleware(limit: options.settings.maxRequestBytes))
                .add(middleware: ClientVersionMiddleware(minimum: options.minimumClientVersion))
            hooks.post("/v1/_test/faults") { request, context in
                service.faults.add(try JSONResponse.decode(FaultPlan.self, context.body))
                return JSONResponse.make(tickResponse(), request: request)
            }
            hooks.post("/v1/_test/expire-sessions") { request, _ in
                try await service.stored(await service.database.expireAllSessions(now: service.clock.now()))
                return JSONResponse.make(tickResponse(), request: request)
            }
            api.add(middleware: FaultInjectionMiddleware(faults: service.faults))
        }
        api.add(middleware: BodyLimitMiddleware(limit: options.settings.maxRequestBytes))
            .add(middleware: ClientVersionMiddleware(minimum: options.minimumClientVersion))

        api.get("/v1/tick") { request, _ in
            JSONResponse.make(tickResponse(), request: request)
        }
        api.post("/v1/session") { request, context in
            let started = try await service.startSession(try JSONResponse.decode(SessionStartRequest.self, context.body), notes: context.notes)
            return JSONResponse.make(started, request: request)
        }

        let authenticated = api.group().add(middleware: AuthenticationMiddleware(service: service))
        authenticated.post("/v1/reports") { request, context in
            let batch = try CanonicalReportBatch.decode(Data(buffer: context.body)) ?? JSONResponse.decode(ReportBatch.self, context.body)
            return JSONResponse.make(try await service.ingest(batch, session: try context.authenticatedSession()), request: request)
        }
        authenticated.post("/v1/fetch") { request, context in
            let fetch = try JSONResponse.decode(DeltaFetchRequest.self, context.body)
            return JSONResponse.make(try await service.fetch(fetch, session: try context.authenticatedSession()), request: request)
        }
        // The fleet map page: its own authentication (API key → session cookie, or a bearer token); docs/maps.md.
        let map = MapRoute(service: service)
        api.get("/map") { request, context in try await map.handle(request, notes: context.notes) }
        authenticated.post("/v1/position") { request, context in
            let body = try JSONResponse.decode(PositionUploadBody.self, context.body)
            try await service.uploadPosition(body.position, altitudeOffset: body.altitudeOffset, session: try context.authenticatedSession())
            return JSONResponse.make(tickResponse(), request: request)
        }
        return router
    }

    /// The methods of every path `router()` serves (a known path asked with another method is answered 405;
    /// `RouterTests` checks the table against the routes).
    static func methods(testHooks: Bool, metrics: Bool) -> [String: [HTTPRequest.Method]] {
        var methods: [String: [HTTPRequest.Method]] = [
            "/healthz": [.get], "/readyz": [.get], "/health": [.get], "/openapi.yaml": [.get], "/map": [.get], "/v1/tick": [.get],
            "/v1/session": [.post], "/v1/reports": [.post], "/v1/fetch": [.post], "/v1/position": [.post],
        ]
        if metrics { methods["/metrics"] = [.get] }
        if testHooks { (methods["/v1/_test/faults"], methods["/v1/_test/expire-sessions"]) = ([.post], [.post]) }
        return methods
    }

    /// The current tick and server time (the answer of `/v1/tick`, `/v1/position` and the test hooks).
    func tickResponse() -> TickResponse {
        TickResponse(serverTick: service.currentTick(), serverTime: service.clock.now())
    }
}
#endif
