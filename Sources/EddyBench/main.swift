// eddy-bench: release-build benchmarks printing `name: value` figures (scaffold).
print("eddy-bench: no benchmarks yet")
