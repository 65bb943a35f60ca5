"""The starter study (icdenoise.scaffold's template): the noisy query itself, x̂ = x̃, against the noise
variance σ_z² on each of its cases."""
