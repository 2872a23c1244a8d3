#pragma once
// BindingSlot: where a language binding keeps its own object for a tensor. The Python extension
// keeps the tensor's one Python object here, so that the same C++ tensor reaches Python as the
// same object every time (`t.grad is t.grad`, a parameter with Python attributes set on it), as
// PyTorch keeps a PyObject* in its TensorImpl. core never looks inside and never includes Python:
// it stores a pointer, whether the tensor owns that object, and the function that lets go of an
// owned object when the tensor dies.
//
// Only the binding reads and writes the slot, under its own lock (Python's GIL). The destructor
// runs when the last handle to the tensor is gone, on whatever thread dropped it, so it races
// with nothing; an owned object is then handed to `release`, which must cope with any thread.
namespace ember {

class BindingSlot {
 public:
  /// Lets go of an owned object (called from ~BindingSlot, on any thread, without any lock).
  using Release = void (*)(void* object);

  BindingSlot() = default;
  BindingSlot(const BindingSlot&) = delete;
  BindingSlot& operator=(const BindingSlot&) = delete;
  ~BindingSlot() {
    if (owned_ && object_ != nullptr) release_(object_);
  }

  /// The binding's object, or null.
  void* object() const { return object_; }
  /// True when the tensor keeps the object alive (else the object keeps the tensor alive).
  bool owned() const { return owned_; }
  /// slot.set(obj, /*owned=*/false, release): records `object`; `release` must be non-null
  /// whenever the slot may come to own it.
  void set(void* object, bool owned, Release release) {
    object_ = object;
    owned_ = owned;
    release_ = release;
  }
  /// Flips who keeps whom alive, keeping the object.
  void set_owned(bool owned) { owned_ = owned; }
  /// Forgets the object (it is going away).
  void clear() {
    object_ = nullptr;
    owned_ = false;
  }

 private:
  void* object_ = nullptr;
  Release release_ = nullptr;
  bool owned_ = false;
};

}  // namespace ember
