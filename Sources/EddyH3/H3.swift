/// Pure-Swift port of H3 v4.5.0 (bit-identical cells). Scaffold: the port lands in this module.
public enum H3 {}
