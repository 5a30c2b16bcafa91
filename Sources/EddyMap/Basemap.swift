/// The embedded basemap: Natural Earth 1:110m country outlines (public domain), generated into `BasemapData.swift` by
/// `scripts/make_basemap.py` (docs/maps.md, "Basemap").
package enum Basemap {
    /// The attribution the pages show.
    package static let attribution = "Basemap: Natural Earth 1:110m Admin 0 countries (public domain, naturalearthdata.com)"
}
