"""torch.backends.openmp: Ember runs its own thread pool (ember.set_num_threads), not OpenMP."""


def is_available() -> bool:
    return False
