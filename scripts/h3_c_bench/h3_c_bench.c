// The C side of `eddy-bench h3` (docs/h3.md "Against the C library"): uber/h3 v4.5.0's own latLngToCell,
// cellToBoundary, cellToLatLng and gridDisk on the very inputs Sources/EddyBench/H3Bench.swift measures —
// 1,000,000 points uniform on the sphere from the same xorshift64 (seed 0x9E3779B97F4A7C15), their res-5 cells.
// Rates are operations per second of this thread's CPU time, best of 5 rounds, as on the Swift side.
// It also prints XOR checksums of the cells and of the boundary vertices' bits, which eddy-bench compares with
// its own, so the two sides are known to have computed the same thing.
// Built by scripts/build_h3_c_bench.sh (gcc -O3 against the h3-py 4.5.0 source distribution's vendored library).
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "h3api.h"

static double threadCPUSeconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t xorshiftState = 0x9E3779B97F4A7C15ULL;

// BenchSupport.XorShift.unit(): 53 high bits of xorshift64 as a double in [0, 1).
static double unitDouble(void) {
    xorshiftState ^= xorshiftState << 13;
    xorshiftState ^= xorshiftState >> 7;
    xorshiftState ^= xorshiftState << 17;
    return (double)(xorshiftState >> 11) * 0x1.0p-53;
}

static uint64_t doubleBits(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

int main(void) {
    const int count = 1000000;
    const int rounds = 5;
    double *latsDegrees = malloc(sizeof(double) * count);
    double *lngsDegrees = malloc(sizeof(double) * count);
    H3Index *cells = malloc(sizeof(H3Index) * count);
    if (!latsDegrees || !lngsDegrees || !cells) {
        fprintf(stderr, "h3_c_bench: out of memory\n");
        return 1;
    }
    for (int i = 0; i < count; i++) {
        latsDegrees[i] = asin(unitDouble() * 2 - 1) * 180 / M_PI;  // uniform on the sphere
        lngsDegrees[i] = unitDouble() * 360 - 180;
    }

    double best = INFINITY;
    uint64_t cellsXor = 0;
    for (int round = 0; round < rounds; round++) {
        uint64_t acc = 0;
        double start = threadCPUSeconds();
        for (int i = 0; i < count; i++) {
            LatLng point = {degsToRads(latsDegrees[i]), degsToRads(lngsDegrees[i])};
            H3Index cell = 0;
            if (latLngToCell(&point, 5, &cell) != E_SUCCESS) {
                fprintf(stderr, "h3_c_bench: latLngToCell failed at point %d\n", i);
                return 1;
            }
            acc ^= cell;
            cells[i] = cell;
        }
        double seconds = threadCPUSeconds() - start;
        if (seconds < best) best = seconds;
        cellsXor = acc;
    }
    printf("c_latlng_to_cell_per_s: %.0f\n", count / best);
    printf("c_latlng_to_cell_xor: %016llx\n", (unsigned long long)cellsXor);

    best = INFINITY;
    uint64_t boundaryXor = 0;
    for (int round = 0; round < rounds; round++) {
        uint64_t acc = 0;
        double start = threadCPUSeconds();
        for (int i = 0; i < count; i++) {
            CellBoundary boundary;
            cellToBoundary(cells[i], &boundary);
            for (int v = 0; v < boundary.numVerts; v++) {
                acc ^= doubleBits(boundary.verts[v].lat) ^ (doubleBits(boundary.verts[v].lng) << 1);
            }
            acc += (uint64_t)boundary.numVerts;
        }
        double seconds = threadCPUSeconds() - start;
        if (seconds < best) best = seconds;
        boundaryXor = acc;
    }
    printf("c_cell_to_boundary_per_s: %.0f\n", count / best);
    printf("c_cell_to_boundary_xor: %016llx\n", (unsigned long long)boundaryXor);
    // Untimed: the vertices' coordinate sum and count, which agree with EddyH3's within rounding even where the bits
    // differ (EddyH3 computes boundary vertices through the gnomonic identity, docs/h3.md).
    double boundarySum = 0;
    long long boundaryVertices = 0;
    for (int i = 0; i < count; i++) {
        CellBoundary boundary;
        cellToBoundary(cells[i], &boundary);
        for (int v = 0; v < boundary.numVerts; v++) boundarySum += boundary.verts[v].lat + boundary.verts[v].lng;
        boundaryVertices += boundary.numVerts;
    }
    printf("c_cell_to_boundary_sum: %.17g\n", boundarySum);
    printf("c_cell_to_boundary_vertices: %lld\n", boundaryVertices);

    best = INFINITY;
    uint64_t sink = 0;
    for (int round = 0; round < rounds; round++) {
        double start = threadCPUSeconds();
        for (int i = 0; i < count; i++) {
            LatLng centre;
            cellToLatLng(cells[i], &centre);
            sink ^= doubleBits(centre.lat);
        }
        double seconds = threadCPUSeconds() - start;
        if (seconds < best) best = seconds;
    }
    printf("c_cell_to_latlng_per_s: %.0f\n", count / best);

    best = INFINITY;
    const int diskCount = count / 4;
    for (int round = 0; round < rounds; round++) {
        double start = threadCPUSeconds();
        for (int i = 0; i < diskCount; i++) {
            H3Index disk[7] = {0};
            gridDisk(cells[i], 1, disk);
            sink ^= disk[6];
        }
        double seconds = threadCPUSeconds() - start;
        if (seconds < best) best = seconds;
    }
    printf("c_grid_disk_k1_per_s: %.0f\n", diskCount / best);
    printf("# c checksum %016llx\n", (unsigned long long)sink);
    free(latsDegrees);
    free(lngsDegrees);
    free(cells);
    return 0;
}
