//===- MetadataNote.cpp - the msgpack metadata note, type-checked ---------===//
//
// llvm::msgpack::Document cannot be used on untrusted input: a map key of an
// unexpected kind (an array, a float, ...) reaches llvm_unreachable while
// the document is built, and its typed getters assert on the wrong kind. So
// the note is read with the bounds-checked msgpack::Reader into a small tree
// whose size and depth are bounded by the blob, and every value's kind is
// checked before it is used. Field names and meanings: AMDGPUUsage, "Code
// Object V3 Metadata" and later.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Target/CodeObject.h"

#include "llvm/ADT/Twine.h"
#include "llvm/BinaryFormat/MsgPackReader.h"

using namespace llvm;
using namespace mxgemm::target;

namespace {

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           "AMDGPU metadata: " + message);
}

/// One msgpack value. Arrays keep their elements in `items`; maps keep
/// key, value, key, value, ...
struct Node {
  msgpack::Type kind = msgpack::Type::Nil;
  uint64_t uint = 0;
  int64_t sint = 0;
  StringRef string;
  std::vector<Node> items;
};

/// The deepest nesting accepted. The metadata needs 5 levels (root map,
/// kernel list, kernel map, argument list, argument map); the bound keeps
/// the recursion off the end of the stack.
constexpr unsigned kMaxDepth = 16;

class TreeReader {
public:
  explicit TreeReader(StringRef blob) : reader(blob), budget(blob.size()) {}

  Expected<Node> read(unsigned depth) {
    if (depth > kMaxDepth)
      return makeError("nested deeper than " + Twine(kMaxDepth) + " levels");
    msgpack::Object obj;
    Expected<bool> ok = reader.read(obj);
    if (!ok)
      return makeError("malformed msgpack: " + toString(ok.takeError()));
    if (!*ok)
      return makeError("truncated msgpack");
    // Every value takes at least one byte, so a blob of N bytes holds at
    // most N values: that bounds what the lengths below may claim (and the
    // memory the tree takes). This value was read, so budget >= 1.
    --budget;
    Node node;
    node.kind = obj.Kind;
    switch (obj.Kind) {
    case msgpack::Type::UInt:
      node.uint = obj.UInt;
      break;
    case msgpack::Type::Int:
      node.sint = obj.Int;
      break;
    case msgpack::Type::Boolean:
      node.uint = obj.Bool;
      break;
    case msgpack::Type::String:
    case msgpack::Type::Binary:
      node.string = obj.Raw;
      break;
    case msgpack::Type::Array:
    case msgpack::Type::Map: {
      uint64_t count = obj.Length;
      if (obj.Kind == msgpack::Type::Map &&
          __builtin_mul_overflow(count, uint64_t(2), &count))
        return makeError("map length overflows");
      if (count > budget)
        return makeError("a length of " + Twine(obj.Length) +
                         " exceeds the note");
      node.items.reserve(count);
      for (uint64_t i = 0; i < count; ++i) {
        auto item = read(depth + 1);
        if (!item)
          return item.takeError();
        node.items.push_back(std::move(*item));
      }
      break;
    }
    default: // Nil, Float, Extension: never interpreted
      break;
    }
    return node;
  }

  bool atEnd() {
    msgpack::Object obj;
    Expected<bool> more = reader.read(obj);
    if (!more) {
      consumeError(more.takeError());
      return false;
    }
    return !*more;
  }

private:
  msgpack::Reader reader;
  uint64_t budget;
};

/// Typed, checked access to the string-keyed map of `what`.
class MapView {
public:
  static Expected<MapView> get(const Node &node, const Twine &what) {
    if (node.kind != msgpack::Type::Map)
      return makeError(what + " is not a map");
    for (size_t i = 0; i < node.items.size(); i += 2)
      if (node.items[i].kind != msgpack::Type::String)
        return makeError(what + " has a key that is not a string");
    return MapView(node, what.str());
  }

  const Node *find(StringRef key) const {
    for (size_t i = 0; i < node->items.size(); i += 2)
      if (node->items[i].string == key)
        return &node->items[i + 1];
    return nullptr;
  }

  /// An unsigned 32-bit field; absent = `absent` (0 unless required).
  Error getU32(StringRef key, uint32_t &out, bool required = false) const {
    const Node *v = find(key);
    if (!v) {
      if (required)
        return makeError(what + " has no " + key);
      out = 0;
      return Error::success();
    }
    uint64_t value = 0;
    if (Error e = asU32(*v, key, value))
      return e;
    out = uint32_t(value);
    return Error::success();
  }

  Error getString(StringRef key, std::string &out,
                  bool required = false) const {
    const Node *v = find(key);
    if (!v) {
      if (required)
        return makeError(what + " has no " + key);
      out.clear();
      return Error::success();
    }
    if (v->kind != msgpack::Type::String)
      return makeError(what + ": " + key + " is not a string");
    out = v->string.str();
    return Error::success();
  }

  /// An array of unsigned 32-bit values of exactly `count` elements.
  Error getU32Array(StringRef key, uint32_t *out, unsigned count) const {
    const Node *v = find(key);
    if (!v)
      return Error::success();
    if (v->kind != msgpack::Type::Array || v->items.size() != count)
      return makeError(what + ": " + key + " is not an array of " +
                       Twine(count) + " integers");
    for (unsigned i = 0; i < count; ++i) {
      uint64_t value = 0;
      if (Error e = asU32(v->items[i], key, value))
        return e;
      out[i] = uint32_t(value);
    }
    return Error::success();
  }

  const std::string &name() const { return what; }

private:
  MapView(const Node &node, std::string what)
      : node(&node), what(std::move(what)) {}

  Error asU32(const Node &v, StringRef key, uint64_t &value) const {
    if (v.kind == msgpack::Type::UInt)
      value = v.uint;
    else if (v.kind == msgpack::Type::Int && v.sint >= 0)
      value = uint64_t(v.sint);
    else
      return makeError(what + ": " + key + " is not a non-negative integer");
    if (value > UINT32_MAX)
      return makeError(what + ": " + key + " = " + Twine(value) +
                       " is out of range");
    return Error::success();
  }

  const Node *node;
  std::string what;
};

Expected<KernelArgument> readArgument(const Node &node, const Twine &what) {
  auto map = MapView::get(node, what);
  if (!map)
    return map.takeError();
  KernelArgument arg;
  if (Error e = map->getString(".name", arg.name))
    return e;
  if (Error e = map->getString(".value_kind", arg.valueKind,
                               /*required=*/true))
    return e;
  if (Error e = map->getString(".address_space", arg.addressSpace))
    return e;
  if (Error e = map->getU32(".offset", arg.offset, /*required=*/true))
    return e;
  if (Error e = map->getU32(".size", arg.size, /*required=*/true))
    return e;
  return arg;
}

Expected<KernelMetadata> readKernel(const Node &node, size_t index) {
  auto map = MapView::get(node, "amdhsa.kernels[" + Twine(index) + "]");
  if (!map)
    return map.takeError();
  KernelMetadata k;
  if (Error e = map->getString(".name", k.name, /*required=*/true))
    return e;
  std::string what = "kernel '" + k.name + "'";
  map = MapView::get(node, what);
  if (!map)
    return map.takeError();
  struct {
    const char *key;
    uint32_t *field;
  } fields[] = {
      {".vgpr_count", &k.vgprCount},
      {".agpr_count", &k.agprCount},
      {".sgpr_count", &k.sgprCount},
      {".vgpr_spill_count", &k.vgprSpillCount},
      {".sgpr_spill_count", &k.sgprSpillCount},
      {".private_segment_fixed_size", &k.privateSegmentFixedSize},
      {".group_segment_fixed_size", &k.groupSegmentFixedSize},
      {".kernarg_segment_size", &k.kernargSegmentSize},
      {".kernarg_segment_align", &k.kernargSegmentAlign},
      {".max_flat_workgroup_size", &k.maxFlatWorkgroupSize},
      {".wavefront_size", &k.wavefrontSize},
  };
  for (auto &f : fields)
    if (Error e = map->getU32(f.key, *f.field))
      return e;
  if (Error e = map->getString(".symbol", k.symbol))
    return e;
  if (Error e =
          map->getU32Array(".reqd_workgroup_size", k.reqdWorkgroupSize, 3))
    return e;
  if (k.hasReqdWorkgroupSize() &&
      (!k.reqdWorkgroupSize[1] || !k.reqdWorkgroupSize[2]))
    return makeError(what + ": .reqd_workgroup_size has a zero dimension");
  if (const Node *args = map->find(".args")) {
    if (args->kind != msgpack::Type::Array)
      return makeError(what + ": .args is not an array");
    for (size_t i = 0; i < args->items.size(); ++i) {
      auto arg = readArgument(args->items[i], what + " argument " + Twine(i));
      if (!arg)
        return arg.takeError();
      // Whoever fills the kernarg segment writes offset..offset+size; a
      // note that places an argument outside the segment is corrupt.
      uint64_t end = uint64_t(arg->offset) + arg->size;
      if (end > k.kernargSegmentSize)
        return makeError(what + " argument " + Twine(i) + " (bytes " +
                         Twine(arg->offset) + ".." + Twine(end) +
                         ") lies outside the " + Twine(k.kernargSegmentSize) +
                         "-byte kernarg segment");
      k.args.push_back(std::move(*arg));
    }
  }
  return k;
}

} // namespace

uint32_t KernelMetadata::explicitArgumentBytes() const {
  uint32_t end = 0;
  for (const KernelArgument &a : args)
    if (!a.isHidden())
      end = std::max(end, a.offset + a.size); // checked <= segment at parse
  return end;
}

const KernelMetadata *CodeObjectMetadata::findKernel(StringRef name) const {
  for (const KernelMetadata &k : kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

Expected<CodeObjectMetadata> mxgemm::target::parseMetadataNote(StringRef blob) {
  TreeReader reader(blob);
  auto root = reader.read(0);
  if (!root)
    return root.takeError();
  if (!reader.atEnd())
    return makeError("trailing bytes after the metadata map");
  auto map = MapView::get(*root, "the metadata root");
  if (!map)
    return map.takeError();
  CodeObjectMetadata md;
  if (Error e = map->getString("amdhsa.target", md.target))
    return e;
  if (Error e = map->getU32Array("amdhsa.version", md.version, 2))
    return e;
  const Node *kernels = map->find("amdhsa.kernels");
  if (!kernels)
    return md;
  if (kernels->kind != msgpack::Type::Array)
    return makeError("amdhsa.kernels is not an array");
  md.hasKernelList = true;
  for (size_t i = 0; i < kernels->items.size(); ++i) {
    auto k = readKernel(kernels->items[i], i);
    if (!k)
      return k.takeError();
    md.kernels.push_back(std::move(*k));
  }
  return md;
}
