#if Tools
extension OpenAPIDocument {
    /// The `components.schemas` section of the OpenAPI document (`OpenAPIDocument.yaml` ends with it).
    static let schemas = #"""
  schemas:
    ErrorBody:
      type: object
      required: [error, message]
      properties:
        error: {type: string}
        message: {type: string}
        retryAfterSeconds: {type: number}
    TickResponse:
      type: object
      required: [serverTick, serverTime]
      properties:
        serverTick: {type: integer, minimum: 0}
        serverTime: {type: number}
    GeoPoint:
      type: object
      required: [lat, lng]
      properties:
        lat: {type: number, minimum: -90, maximum: 90}
        lng: {type: number, minimum: -180, maximum: 180}
    AircraftClass:
      type: string
      enum: [small, medium, large]
    SessionStartRequest:
      type: object
      required: [apiKey, airline, userId, clientVersion]
      properties:
        apiKey: {type: string, minLength: 1, maxLength: 200}
        airline: {type: string, pattern: '^[A-Z0-9]{3}$', description: 'Company ICAO code, 3 upper-case characters.'}
        userId: {type: string, minLength: 1, maxLength: 128}
        clientVersion: {type: string, pattern: '^[0-9]{1,6}(\.[0-9]{1,6}){0,2}$', description: 'MAJOR.MINOR.PATCH'}
    ServerSettings:
      type: object
      required: [minimalIntervalSeconds, mediumIntervalSeconds, fastIntervalSeconds, tickSeconds,
                 fullRefreshAfterTicks, maxReportsPerBatch, maxRequestBytes, liveFlightExpirySeconds]
      properties:
        minimalIntervalSeconds: {type: number}
        mediumIntervalSeconds: {type: number}
        fastIntervalSeconds: {type: number}
        tickSeconds: {type: number}
        fullRefreshAfterTicks: {type: integer}
        maxReportsPerBatch: {type: integer}
        maxRequestBytes: {type: integer}
        liveFlightExpirySeconds: {type: number}
        thresholds: {$ref: '#/components/schemas/ClientThresholds'}
    ClientThresholds:
      type: object
      description: 'Client thresholds set by the server; each is optional (a client uses its local default for one not sent). Absent from servers older than them.'
      properties:
        lowPowerSpeedKnots: {type: number, exclusiveMinimum: 0}
        lowPowerAfterSeconds: {type: number, exclusiveMinimum: 0}
        inAirAltitudeFeet: {type: number, exclusiveMinimum: 0}
        inAirSpeedKnots: {type: number, exclusiveMinimum: 0}
        maximumHorizontalAccuracyMeters: {type: number, exclusiveMinimum: 0}
        maximumVerticalAccuracyMeters: {type: number, exclusiveMinimum: 0}
    SessionStartResponse:
      type: object
      required: [token, expiresAt, serverTick, settings]
      properties:
        token: {type: string}
        expiresAt: {type: number}
        serverTick: {type: integer}
        settings: {$ref: '#/components/schemas/ServerSettings'}
    TileID:
      type: object
      required: [h3, layer]
      properties:
        h3: {type: integer, minimum: 0, description: 'H3 resolution-5 cell index as an unsigned 64-bit integer.'}
        layer: {type: integer, description: 'floor(altitude feet / 1000).'}
    TileReport:
      type: object
      required: [id, tile, enterTime, exitTime, edrPeak, edrMedian, reporterClass]
      properties:
        id: {type: string, format: uuid}
        tile: {$ref: '#/components/schemas/TileID'}
        enterTime: {type: number}
        exitTime: {type: number}
        edrPeak: {type: number}
        edrMedian: {type: number}
        reporterClass: {$ref: '#/components/schemas/AircraftClass'}
        altitudeSource:
          type: [string, 'null']
          enum: [external, barometer, gnss_fleet, gnss, null]
          description: 'Where the pressure altitude that chose the layer came from; absent or null when not recorded.'
        altitudeU90Feet:
          type: [number, 'null']
          minimum: 0
          description: '90 % uncertainty of that pressure altitude, feet; absent or null when not recorded.'
        layerUncertain:
          type: [boolean, 'null']
          description: 'True when the 90 % interval reaches beyond the layer; absent or null when not recorded.'
    ReportBatch:
      type: object
      required: [reports]
      properties:
        reports:
          type: array
          maxItems: 1000
          items: {$ref: '#/components/schemas/TileReport'}
    RejectedReport:
      type: object
      required: [id, reason]
      properties:
        id: {type: string, format: uuid}
        reason: {type: string}
    ReportBatchAck:
      type: object
      required: [acceptedIds, newCount, duplicateCount, rejected, serverTick]
      properties:
        acceptedIds:
          type: array
          items: {type: string, format: uuid}
        newCount: {type: integer, minimum: 0}
        duplicateCount: {type: integer, minimum: 0}
        rejected:
          type: array
          items: {$ref: '#/components/schemas/RejectedReport'}
        serverTick: {type: integer}
    SyncArea:
      description: A global area has an empty polygon; a route or viewport area has a ring of 3 to 250 vertices (a closing vertex may be added).
      oneOf:
        - type: object
          required: [type, polygon]
          properties:
            type: {const: global}
            polygon: {type: array, maxItems: 0}
        - type: object
          required: [type, polygon]
          properties:
            type: {type: string, enum: [route, viewport]}
            polygon:
              type: array
              minItems: 3
              maxItems: 251
              items: {$ref: '#/components/schemas/GeoPoint'}
    DeltaFetchRequest:
      type: object
      required: [dataType, area, historyHours, minLayer, maxLayer, viewerClass]
      properties:
        dataType: {type: string, enum: [turbulence, nowcast, polygons, liveFlights]}
        area: {$ref: '#/components/schemas/SyncArea'}
        sinceTick: {type: [integer, 'null']}
        historyHours: {type: number, enum: [0.5, 1, 2, 4, 6]}
        minLayer: {type: integer, minimum: -2, maximum: 99, description: 'Thousands of feet; minLayer <= maxLayer.'}
        maxLayer: {type: integer, minimum: -2, maximum: 99}
        viewerClass: {$ref: '#/components/schemas/AircraftClass'}
        pageSize:
          type: [integer, 'null']
          minimum: 1
          description: 'Most items (observations, nowcast cells, live flights) wanted in one answer; the server caps it at its own limit. A client that sends it follows nextCursor. Without it (or null) the whole answer comes at once, or 400 answerTooLarge when it would exceed the limit.'
        cursor:
          type: [string, 'null']
          maxLength: 128
          description: 'The nextCursor of the previous page of this fetch (same request otherwise); needs pageSize. null is the same as leaving it out (first page).'
    Observation:
      type: object
      required: [report, reporterId, tick]
      properties:
        report: {$ref: '#/components/schemas/TileReport'}
        reporterId: {type: string}
        tick: {type: integer}
    NowcastCell:
      type: object
      required: [tile, forecastHour, validTime, issueTime, edr]
      properties:
        tile: {$ref: '#/components/schemas/TileID'}
        forecastHour: {type: integer, minimum: 0, maximum: 6}
        validTime: {type: number}
        issueTime: {type: number}
        edr: {type: number}
        provenance:
          type: string
          enum: [fleetMeasured, pilotReport, forecast]
          description: 'The source that dominates the cell''s value (docs/nowcast.md "Blend"). Absent from older servers: read as fleetMeasured.'
    LiveFlight:
      type: object
      description: 'Another aircraft''s latest position. flightId is the server''s random id for that flight (never the pilot''s user id); flightNumber only reaches clients of the same airline.'
      required: [flightId, aircraftType, lat, lng, altitudeFeet, headingDegrees, speedKnots, time]
      properties:
        flightId: {type: string, minLength: 1, maxLength: 32}
        flightNumber: {type: string, minLength: 1, maxLength: 16}
        aircraftType: {type: string, minLength: 1, maxLength: 8}
        lat: {type: number, minimum: -90, maximum: 90}
        lng: {type: number, minimum: -180, maximum: 180}
        altitudeFeet: {type: number, minimum: -2000, maximum: 70000}
        headingDegrees: {type: number, minimum: 0, maximum: 360}
        speedKnots: {type: number, minimum: 0, maximum: 2000}
        time: {type: number}
    AltitudeOffsetObservation:
      type: object
      description: 'An aircraft''s GNSS altitude above MSL minus its pressure altitude, where and when it measured it.'
      required: [time, latitudeDegrees, longitudeDegrees, pressureAltitudeFeet, offsetFeet, uncertaintyFeet]
      properties:
        time: {type: number, description: 'Unix seconds; at most 600 s after the server clock.'}
        latitudeDegrees: {type: number, minimum: -90, maximum: 90}
        longitudeDegrees: {type: number, minimum: -180, maximum: 180}
        pressureAltitudeFeet: {type: number, minimum: -2000, maximum: 60000}
        offsetFeet: {type: number, minimum: -5000, maximum: 5000}
        uncertaintyFeet: {type: number, exclusiveMinimum: 0, maximum: 10000, description: '1 sigma, feet.'}
    PositionUpload:
      type: object
      description: 'LiveFlight fields plus an optional fleet altitude offset (absent or null: none). flightId is a random id per flight chosen by the client (never a user id); the optional flightNumber (absent or null: none) is shown to the same airline only.'
      required: [flightId, aircraftType, lat, lng, altitudeFeet, headingDegrees, speedKnots, time]
      properties:
        flightId: {type: string, minLength: 1, maxLength: 32}
        flightNumber:
          oneOf:
            - {type: string, minLength: 1, maxLength: 16}
            - {type: 'null'}
        aircraftType: {type: string, minLength: 1, maxLength: 8}
        lat: {type: number, minimum: -90, maximum: 90}
        lng: {type: number, minimum: -180, maximum: 180}
        altitudeFeet: {type: number, minimum: -2000, maximum: 70000}
        headingDegrees: {type: number, minimum: 0, maximum: 360}
        speedKnots: {type: number, minimum: 0, maximum: 2000}
        time: {type: number}
        altitudeOffset:
          oneOf:
            - {$ref: '#/components/schemas/AltitudeOffsetObservation'}
            - {type: 'null'}
    AltitudeOffsetCell:
      type: object
      description: 'The fleet''s mean GNSS − pressure altitude offset in one H3 resolution-3 cell and 1000 ft layer.'
      required: [h3, layer, offsetFeet, uncertaintyFeet, observationCount, newestTime]
      properties:
        h3: {type: integer, minimum: 0, description: 'H3 resolution-3 cell index as an unsigned 64-bit integer.'}
        layer: {type: integer}
        offsetFeet: {type: number}
        uncertaintyFeet: {type: number, minimum: 0, description: '1 sigma of the mean, spread between aircraft included.'}
        observationCount: {type: integer, minimum: 1}
        newestTime: {type: number}
    PolygonFeature:
      type: object
      required: [type, geometry, properties]
      properties:
        type: {const: Feature}
        geometry:
          type: object
          required: [type, coordinates]
          properties:
            type: {const: Polygon}
            coordinates:
              type: array
              items:
                type: array
                minItems: 4
                items:
                  type: array
                  minItems: 2
                  maxItems: 2
                  items: {type: number}
        properties:
          type: object
          required: [severity, layerMin, layerMax, historyHours, edrPeak, tileCount]
          properties:
            severity: {type: string, enum: [none, light, lightModerate, moderate, moderateSevere, severe]}
            layerMin: {type: integer}
            layerMax: {type: integer}
            historyHours: {type: number}
            edrPeak: {type: number}
            tileCount: {type: integer, minimum: 1}
    PolygonCollection:
      type: object
      required: [type, features]
      properties:
        type: {const: FeatureCollection}
        features:
          type: array
          items: {$ref: '#/components/schemas/PolygonFeature'}
    DeltaFetchResponse:
      type: object
      required: [dataType, serverTick, full, observations, nowcast, liveFlights]
      properties:
        dataType: {type: string, enum: [turbulence, nowcast, polygons, liveFlights]}
        serverTick: {type: integer}
        full: {type: boolean}
        observations:
          type: array
          items: {$ref: '#/components/schemas/Observation'}
        nowcast:
          type: array
          items: {$ref: '#/components/schemas/NowcastCell'}
        polygons: {$ref: '#/components/schemas/PolygonCollection'}
        liveFlights:
          type: array
          items: {$ref: '#/components/schemas/LiveFlight'}
        altitudeOffsets:
          type: array
          description: 'Turbulence answers (first page): the fleet altitude offsets of the area (current aggregate, not a delta).'
          items: {$ref: '#/components/schemas/AltitudeOffsetCell'}
        nextCursor:
          type: string
          description: 'More items follow: send the same request with this as cursor. Every page carries the first page''s serverTick and full; store the tick after the last page (the one without nextCursor).'
"""#
}
#endif
