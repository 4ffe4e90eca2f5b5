"""ember.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp (filled in by the autograd work)."""
