"""ember.save / ember.load: checkpoints that cannot run code when loaded (docs/serialization.md)."""
import ember


def _restore_location(tensor, location, map_location):
    """Places a loaded CPU tensor where map_location says, given the location tag it was saved with
    ('cpu', 'cuda', 'cuda:1'), following torch.load's rules: None keeps the saved location; a string or
    device moves everything there; a dict renames tags; a callable gets (tensor, tag) and returns a tensor
    (PyTorch passes a storage: ember passes the CPU tensor that holds the storage's bytes)."""
    if callable(map_location) and not isinstance(map_location, (str, dict, ember.device)):
        result = map_location(tensor, location)
        return tensor if result is None else result
    if isinstance(map_location, dict):
        location = map_location.get(location, location)
    elif map_location is not None:
        location = str(map_location)
    if location == "cpu":
        return tensor
    if location.startswith("cuda"):
        if not ember.cuda.is_available():
            raise RuntimeError(
                f"ember.load: attempting to deserialize a tensor saved on device '{location}' but CUDA is not "
                "available; pass map_location='cpu' to load it on the CPU")
        return tensor.to(location)
    raise RuntimeError(f"ember.load: don't know how to restore a tensor saved on location '{location}'")
