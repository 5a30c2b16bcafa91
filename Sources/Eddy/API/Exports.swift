// A host app writes `import Eddy` and nothing else: the engine's public API is made of types from these modules
// (samples, reports, severity, aircraft types, alert results and the ServerData vocabulary from EddyCore; the store
// and its query API from EddyStore, because `EddyEngine.store` is public; fetching status, update frequency and the
// transport errors from EddySync; `TerrainError` from EddyTerrain (`EddyError.terrain`); H3 cells and `LatLng` from EddyH3, since tile ids are H3 cells a host draws).
// Re-exporting them keeps those types reachable without a product per module; what those modules keep `package`
// stays Eddy's own glue.
@_exported import EddyH3
@_exported import EddyStore
@_exported import EddySync
@_exported import EddyTerrain
