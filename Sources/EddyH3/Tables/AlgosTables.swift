// Derived from uber/h3 v4.5.0 src/h3lib/lib/algos.c, Apache-2.0 (see NOTICE and LICENSES/h3-Apache-2.0.txt).
// Constant tables describing the H3 grid, reproduced as flat arrays. Copyright Uber Technologies, Inc.

/// New digit when moving along Class II grids: [oldDigit*7 + direction] (algos.c `NEW_DIGIT_II`).
let newDigitIITable: [Int] = [
    0, 1, 2, 3, 4, 5, 6,
    1, 4, 3, 6, 5, 2, 0,
    2, 3, 1, 4, 6, 0, 5,
    3, 6, 4, 5, 0, 1, 2,
    4, 5, 6, 0, 2, 3, 1,
    5, 2, 0, 1, 3, 6, 4,
    6, 0, 5, 2, 1, 4, 3,
]

/// Coarser-level move when moving along Class II grids (algos.c `NEW_ADJUSTMENT_II`).
let newAdjustmentIITable: [Int] = [
    0, 0, 0, 0, 0, 0, 0,
    0, 1, 0, 1, 0, 5, 0,
    0, 0, 2, 3, 0, 0, 2,
    0, 1, 3, 3, 0, 0, 0,
    0, 0, 0, 0, 4, 4, 6,
    0, 5, 0, 0, 4, 5, 0,
    0, 0, 2, 0, 6, 0, 6,
]

/// New digit when moving along Class III grids (algos.c `NEW_DIGIT_III`).
let newDigitIIITable: [Int] = [
    0, 1, 2, 3, 4, 5, 6,
    1, 2, 3, 4, 5, 6, 0,
    2, 3, 4, 5, 6, 0, 1,
    3, 4, 5, 6, 0, 1, 2,
    4, 5, 6, 0, 1, 2, 3,
    5, 6, 0, 1, 2, 3, 4,
    6, 0, 1, 2, 3, 4, 5,
]

/// Coarser-level move when moving along Class III grids (algos.c `NEW_ADJUSTMENT_III`).
let newAdjustmentIIITable: [Int] = [
    0, 0, 0, 0, 0, 0, 0,
    0, 1, 0, 3, 0, 1, 0,
    0, 0, 2, 2, 0, 0, 6,
    0, 3, 2, 3, 0, 0, 0,
    0, 0, 0, 0, 4, 5, 4,
    0, 1, 0, 0, 5, 5, 0,
    0, 0, 6, 0, 4, 0, 6,
]
