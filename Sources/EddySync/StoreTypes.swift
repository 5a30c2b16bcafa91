import EddyStore

// EddyStore and EddyProtocol both name a `NowcastCell` and a `LiveFlight`, and the module `EddyStore` shares
// its name with its main class (so `EddyStore.NowcastCell` does not resolve). This file imports only EddyStore
// and gives the store's types unambiguous names for `EddyStoreSyncAdapter.swift`.

/// The store's nowcast cell.
typealias StoreNowcastCell = NowcastCell
/// The store's live flight.
typealias StoreLiveFlight = LiveFlight
