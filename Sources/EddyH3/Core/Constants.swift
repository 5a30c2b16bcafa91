// Derived from uber/h3 v4.5.0 src/h3lib/include/constants.h and src/h3lib/lib/faceijk.c, Apache-2.0
// (see NOTICE). Each literal below is the exact double nearest to the reference's decimal constant;
// `ConstantsTests` pins their bit patterns.

/// π.
let kPi = 3.141592653589793
/// π / 2.
let kPi2 = 1.5707963267948966
/// 2π.
let k2Pi = 6.283185307179586
/// π / 180, used as `degrees * kPi180` exactly as the reference's `degsToRads`.
let kPi180 = 0.017453292519943295
/// 180 / π, used as `radians * k180Pi` exactly as the reference's `radsToDegs`.
let k180Pi = 57.29577951308232
/// Threshold below which a distance is treated as zero.
let kEpsilon = 1e-16
/// sqrt(3) / 2 (= sin 60°).
let kSqrt3_2 = 0.8660254037844386
/// 1 / sin 60°.
let kRSin60 = 1.1547005383792515
/// 1 / 3.
let kOneThird = 0.3333333333333333
/// 1 / 7.
let kOneSeventh = 0.14285714285714285
/// Rotation angle between Class II and Class III resolution axes, asin(sqrt(3/28)).
let kAp7RotRads = 0.3334731722518321
/// Authalic Earth radius in kilometres used by the reference.
let kEarthRadiusKm = 6371.007180918475
/// Scaling factor from hex2d resolution 0 unit length to gnomonic unit length.
let kRes0UGnomonic = 0.381966011250105
/// Scaling factor from gnomonic unit length to hex2d resolution 0 unit length.
let kInvRes0UGnomonic = 2.618033988749896
/// sqrt(7).
let kSqrt7 = 2.6457513110645907
/// 1 / sqrt(7).
let kRSqrt7 = 0.37796447300922725
/// `FLT_EPSILON` as a double, used by the distortion-vertex test.
let kFltEpsilon = Double(Float.ulpOfOne)
/// `DBL_EPSILON`.
let kDblEpsilon = Double.ulpOfOne

/// Highest H3 resolution.
let kMaxRes = 15
/// Number of icosahedron faces.
let kNumFaces = 20
/// Number of resolution 0 base cells.
let kNumBaseCells = 122
/// Base cell number meaning "no neighbour".
let kInvalidBaseCell = 127
/// Largest ijk component accepted by the face→base cell lookup.
let kMaxFaceCoord = 2
