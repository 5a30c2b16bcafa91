// Derived from uber/h3 v4.5.0 src/h3lib/lib/localij.c, Apache-2.0 (see NOTICE and LICENSES/h3-Apache-2.0.txt).
// Pentagon unfolding tables for local IJK coordinates, 7 × 7 each, [row * 7 + column].

/// Origin leading digit → index leading digit → 60° cw rotations (`PENTAGON_ROTATIONS`); -1 = invalid.
let pentagonRotationsTable: [Int] = [
    0, -1, 0, 0, 0, 0, 0,
    -1, -1, -1, -1, -1, -1, -1,
    0, -1, 0, 0, 0, 1, 0,
    0, -1, 0, 0, 1, 1, 0,
    0, -1, 0, 5, 0, 0, 0,
    0, -1, 5, 5, 0, 0, 0,
    0, -1, 0, 0, 0, 0, 0,
]

/// Prohibited directions when unfolding a pentagon (`FAILED_DIRECTIONS`), 1 = prohibited.
let failedDirectionsTable: [Int] = [
    0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 1, 1, 0,
    0, 0, 0, 0, 1, 0, 1,
    0, 0, 1, 1, 0, 0, 0,
    0, 0, 1, 0, 0, 0, 1,
    0, 0, 0, 1, 0, 1, 0,
]
