// A host app writes `import Eddy` and nothing else: the engine's public API is made of types from these modules, so
// they are re-exported (what each keeps `package` stays Eddy's own glue):
// - EddyVocabulary: samples, tiles and reports, severity, aircraft types, server data, along-track relation;
// - EddyNavigation: consistency warnings, barometer calibration, cabin, flight phase;
// - EddyDetection: measurement notices;
// - EddyAlerts: alert queries and results, turbulence polygons;
// - EddyH3: H3 cells and `LatLng` (tile ids are cells a host draws);
// - EddyStore: the query types and `StoreError` of the turbulence, nowcast, polygon and live-flight queries;
// - EddySync: fetching status, update frequency, `SyncError`, and (re-exported by it) the transport interface of
//   EddyTransport and, on Apple platforms, URLSession's transport;
// - EddyTerrain: `TerrainError` (`EddyError.terrain`).
@_exported import EddyAlerts
@_exported import EddyDetection
@_exported import EddyH3
@_exported import EddyNavigation
@_exported import EddyStore
@_exported import EddySync
@_exported import EddyTerrain
@_exported import EddyVocabulary
