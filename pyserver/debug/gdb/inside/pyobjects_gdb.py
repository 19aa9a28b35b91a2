"""Sourced by way of pyframes_gdb.py into gdb: CPython objects read from the debuggee's memory.

`describe(obj)` gives what the Variables view shows of one object: repr() where it can be had from
memory alone (ints, floats, str, None, and tuples, namedtuples, lists, dicts and sets made of them),
else `<type object>`; the items of containers, the fields of instances (their `__dict__`, managed or
not) and NumPy arrays' dtype, shape and first items as children, bounded. Layouts of CPython 3.10 to
3.13 (chosen by the fields the debuggee's types have). Memory reads only: nothing runs in the debuggee.
"""

import struct

import gdb  # type: ignore[import-not-found]

# Per process: gdb's types of the debuggee's libpython and its symbols' addresses do not change while it
# runs; looking them up again for every frame and object was most of a stack's cost.
_static: dict = {"pid": None, "types": {}, "fields": {}, "symbols": {}}


def _static_cache(kind):
    pid = gdb.selected_inferior().pid
    if _static["pid"] != pid:
        _static.update(pid=pid, types={}, fields={}, symbols={})
    return _static[kind]


def lookup_type(name):
    cache = _static_cache("types")
    found = cache.get(name)
    if found is None:
        found = cache[name] = gdb.lookup_type(name)
    return found


def symbol_address(name):
    """The address of a global of the debuggee, or None when it has none of that name."""
    cache = _static_cache("symbols")
    if name not in cache:
        try:
            cache[name] = int(gdb.parse_and_eval(f"(long)&{name}"))
        except gdb.error:
            cache[name] = None
    return cache[name]


def read_memory(address, size):
    if size <= 0:
        return b""
    return bytes(gdb.selected_inferior().read_memory(address, size))


def unicode_text(obj):
    """Text of a compact str object (the only kind code objects hold)."""
    if int(obj) == 0:
        return ""
    ascii_type = lookup_type("PyASCIIObject")
    compact_type = lookup_type("PyCompactUnicodeObject")
    ascii_obj = obj.cast(ascii_type.pointer()).dereference()
    length = int(ascii_obj["length"])
    state = ascii_obj["state"]
    kind = int(state["kind"])
    if int(state["ascii"]):
        data = int(obj) + ascii_type.sizeof
        return read_memory(data, length).decode("ascii", errors="replace")
    data = int(obj) + compact_type.sizeof
    raw = read_memory(data, length * kind)
    codec = {1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}.get(kind, "latin-1")
    return raw.decode(codec, errors="replace")


def bytes_value(obj):
    bytes_type = lookup_type("PyBytesObject")
    value = obj.cast(bytes_type.pointer()).dereference()
    size = int(value["ob_base"]["ob_size"])
    address = int(value["ob_sval"].address)
    return read_memory(address, size)


def fields_of(value):
    """Field names of the struct a pointer value points to."""
    target = value.type.strip_typedefs().target()
    cache = _static_cache("fields")
    key = str(target)
    found = cache.get(key)
    if found is None:
        found = cache[key] = frozenset(field.name for field in target.fields())
    return found


def type_name(obj):
    return obj.cast(lookup_type("PyObject").pointer())["ob_type"]["tp_name"].string()


def int_value(obj):
    pointer = obj.cast(lookup_type("PyLongObject").pointer())
    value = pointer.dereference()
    if "long_value" in fields_of(pointer):  # 3.12+: lv_tag = ndigits << 3 | sign (0 +, 1 zero, 2 -)
        tag = int(value["long_value"]["lv_tag"])
        count, negative = tag >> 3, (tag & 3) == 2
        digits = value["long_value"]["ob_digit"]
    else:  # 3.11: the sign is ob_size's
        size = int(value["ob_base"]["ob_size"])
        count, negative = abs(size), size < 0
        digits = value["ob_digit"]
    if count > 40:
        return None  # too large to show here (never a truncated value)
    total = 0
    for index in range(count):
        total |= int(digits[index]) << (30 * index)
    return -total if negative else total


# Bounds on what one locals read shows: items per container, nesting, array items.
MAX_ITEMS = 50
MAX_DEPTH = 3
MAX_OBJECTS = 600  # objects read per locals read: nested containers stop opening past it
# Objects whose attributes are no data of the program (a module's whole namespace, a class's).
OPAQUE_TYPES = {"module", "function", "type", "builtin_function_or_method", "method", "cell", "code"}
_budget = [MAX_OBJECTS]
MAX_ARRAY_ITEMS = 10
PY_TPFLAGS_MANAGED_DICT = 1 << 4  # 3.11+
PY_TPFLAGS_INLINE_VALUES = 1 << 2  # 3.13
PY_TPFLAGS_TUPLE_SUBCLASS = 1 << 26
PY_TPFLAGS_LIST_SUBCLASS = 1 << 25
PY_TPFLAGS_DICT_SUBCLASS = 1 << 29
# NumPy's type characters (PyArray_Descr.type) of the dtypes shown: struct format and dtype name.
NUMPY_SCALARS = {
    "?": ("?", "bool"), "b": ("b", "int8"), "B": ("B", "uint8"), "h": ("h", "int16"), "H": ("H", "uint16"),
    "i": ("i", "int32"), "I": ("I", "uint32"), "l": ("q", "int64"), "L": ("Q", "uint64"),
    "q": ("q", "int64"), "Q": ("Q", "uint64"), "f": ("f", "float32"), "d": ("d", "float64"),
}  # fmt: skip


def reset_budget(count):
    """Start a new read: at most `count` objects opened."""
    _budget[0] = count


def _pointer_size():
    return lookup_type("void").pointer().sizeof


def _word(address):
    return int.from_bytes(read_memory(address, _pointer_size()), "little")


def _object(address):
    return gdb.Value(address).cast(lookup_type("PyObject").pointer())


def _type_of(obj):
    return obj.cast(lookup_type("PyObject").pointer())["ob_type"]


def _size_of(obj):
    return int(obj.cast(lookup_type("PyVarObject").pointer())["ob_size"])


def _tuple_items(obj):
    items = obj.cast(lookup_type("PyTupleObject").pointer())["ob_item"]
    return [items[i] for i in range(min(_size_of(obj), MAX_ITEMS))]


def _list_items(obj):
    items = obj.cast(lookup_type("PyListObject").pointer())["ob_item"]
    return [items[i] for i in range(min(_size_of(obj), MAX_ITEMS))]


def _keys_entries(keys):
    """(key, value slot index, value or None) of a PyDictKeysObject's entries, in insertion order."""
    keys_fields = fields_of(keys)
    indices = int(keys["dk_indices"].address)
    count = int(keys["dk_nentries"])
    if "dk_log2_index_bytes" in keys_fields:  # 3.11+
        entries = indices + (1 << int(keys["dk_log2_index_bytes"]))
        general = int(keys["dk_kind"]) == 0
        entry_type = lookup_type("PyDictKeyEntry" if general else "PyDictUnicodeEntry")
    else:  # 3.10: index width from the table size
        size = int(keys["dk_size"])
        width = 1 if size <= 0xFF else 2 if size <= 0xFFFF else 4 if size <= 0xFFFFFFFF else 8
        entries = indices + size * width
        entry_type = lookup_type("PyDictKeyEntry")
    out = []
    for index in range(min(count, 10_000)):
        entry = gdb.Value(entries + index * entry_type.sizeof).cast(entry_type.pointer()).dereference()
        if int(entry["me_key"]) != 0:
            out.append((entry["me_key"], index, entry["me_value"]))
        if len(out) >= MAX_ITEMS:
            break
    return out


def _values_array(values):
    """The PyObject* slots of a split dict's PyDictValues."""
    return values.cast(lookup_type("PyDictValues").pointer())["values"]


def dict_items(obj):
    """(key, value) pairs of a dict, in its order, bounded; values NULL (deleted) left out."""
    mp = obj.cast(lookup_type("PyDictObject").pointer())
    keys, values = mp["ma_keys"], mp["ma_values"]
    if int(values) != 0 and "values" not in fields_of(values):  # 3.10
        slots = values
    else:
        slots = _values_array(values) if int(values) != 0 else None
    pairs = []
    for key, index, value in _keys_entries(keys):
        value = slots[index] if slots is not None else value
        if int(value) != 0:
            pairs.append((key, value))
    return pairs


def _instance_fields(obj):
    """An instance's attributes (its __dict__, managed or not), or None when it keeps none."""
    tp = _type_of(obj)
    flags = int(tp["tp_flags"])
    word = _pointer_size()
    if flags & PY_TPFLAGS_INLINE_VALUES:  # 3.13: values after the object, keys shared by the type
        dict_pointer = _word(int(obj) - 3 * word)
        if dict_pointer:
            return dict_items(_object(dict_pointer))
        values = gdb.Value(int(obj) + int(tp["tp_basicsize"])).cast(lookup_type("PyDictValues").pointer())
        if not int(values["valid"]):
            return None
        return _shared_key_fields(tp, values["values"])
    if flags & PY_TPFLAGS_MANAGED_DICT:
        tagged = _word(int(obj) - 3 * word)
        if "long_value" in fields_of(gdb.Value(0).cast(lookup_type("PyLongObject").pointer())):  # 3.12
            if tagged & 1:  # the values, stored less one
                return _shared_key_fields(tp, _values_array(gdb.Value(tagged + 1)))
            return dict_items(_object(tagged)) if tagged else None
        if tagged:  # 3.11: the dict at [-3], else the values at [-4]
            return dict_items(_object(tagged))
        values = _word(int(obj) - 4 * word)
        return _shared_key_fields(tp, _values_array(gdb.Value(values))) if values else None
    offset = int(tp["tp_dictoffset"])
    if offset <= 0:
        return None
    dict_pointer = _word(int(obj) + offset)
    return dict_items(_object(dict_pointer)) if dict_pointer else None


def _shared_key_fields(tp, slots):
    heap_type = tp.cast(lookup_type("PyHeapTypeObject").pointer())
    keys = heap_type["ht_cached_keys"]
    if int(keys) == 0:
        return None
    pairs = []
    for key, index, _value in _keys_entries(keys.cast(lookup_type("PyDictKeysObject").pointer())):
        value = slots[index]
        if int(value) != 0:
            pairs.append((key, value))
    return pairs


def _set_items(obj):
    so = obj.cast(lookup_type("PySetObject").pointer())
    table, mask = so["table"], int(so["mask"])
    dummy = symbol_address("_PySet_Dummy")
    items = []
    for index in range(min(mask + 1, 1 << 16)):
        key = table[index]["key"]
        if int(key) != 0 and (dummy is None or int(key) != dummy):
            items.append(key)
            if len(items) >= MAX_ITEMS:
                break
    return items


def _namedtuple_fields(tp):
    """Field names of a namedtuple class: its `_fields`, a tuple of str in the class's dict."""
    type_dict = tp["tp_dict"]
    if int(type_dict) == 0:
        return None
    for key, value in dict_items(type_dict):
        if type_name(key) == "str" and unicode_text(key) == "_fields" and type_name(value) == "tuple":
            names = [unicode_text(item) for item in _tuple_items(value) if type_name(item) == "str"]
            return names if len(names) == _size_of(value) else None
    return None


def _array(obj):
    """A NumPy array: dtype, shape and first items (numeric dtypes, C-contiguous or strided 1-D
    reads), from PyArrayObject_fields' layout, which NumPy keeps stable across versions."""
    word = _pointer_size()
    base = int(obj)
    data, nd = _word(base + 2 * word), int.from_bytes(read_memory(base + 3 * word, 4), "little", signed=True)
    dims, strides = _word(base + 4 * word), _word(base + 5 * word)
    descr = _word(base + 7 * word)
    type_char = chr(read_memory(descr + 3 * word + 1, 1)[0])
    byteorder = chr(read_memory(descr + 3 * word + 2, 1)[0])
    if nd < 0 or nd > 32 or type_char not in NUMPY_SCALARS or byteorder == ">":
        return None
    shape = [int.from_bytes(read_memory(dims + i * 8, 8), "little", signed=True) for i in range(nd)]
    stride_list = [int.from_bytes(read_memory(strides + i * 8, 8), "little", signed=True) for i in range(nd)]
    fmt, dtype = NUMPY_SCALARS[type_char]
    size = struct.calcsize(fmt)
    shape_text = "(" + ", ".join(map(str, shape)) + ("," if nd == 1 else "") + ")"
    children = [
        {"name": "dtype", "value": dtype, "type": "dtype"},
        {"name": "shape", "value": shape_text, "type": "tuple"},
    ]
    if nd >= 1 and data:
        for index in range(min(shape[0], MAX_ARRAY_ITEMS)):
            address = data + index * stride_list[0]
            if nd == 1:
                number = struct.unpack("<" + fmt, read_memory(address, size))[0]
                text = repr(bool(number)) if fmt == "?" else repr(number)
                children.append({"name": f"[{index}]", "value": text, "type": dtype})
            else:
                children.append(
                    {
                        "name": f"[{index}]",
                        "value": f"{dtype} array, shape {tuple(shape[1:])}",
                        "type": "ndarray",
                    }
                )
    return {"value": f"ndarray {dtype} shape {shape_text}", "type": "ndarray", "children": children}


def _join(open_text, parts, close_text, single_comma=False):
    if any(part is None for part in parts):
        return None
    return open_text + ", ".join(parts) + ("," if single_comma and len(parts) == 1 else "") + close_text


def describe(obj, depth=0):
    """{"value", "type", "children"?}: `value` is repr() where it can be had from memory alone, else
    `<type object>`; containers and instances list their items or fields as children (bounded).
    Never runs code in the debuggee."""
    name = type_name(obj)
    if name in ("int", "bool"):
        number = int_value(obj)
        if number is None:
            return {"value": f"<{name} object>", "type": name, "exact": False}
        return {"value": str(number) if name == "int" else str(bool(number)), "type": name, "exact": True}
    if name == "float":
        number = float(obj.cast(lookup_type("PyFloatObject").pointer())["ob_fval"])
        return {"value": repr(number), "type": name, "exact": True}
    if name == "str":
        text = unicode_text(obj)
        if len(text) > 200:
            return {"value": repr(text[:200] + "…"), "type": name, "exact": False}
        return {"value": repr(text), "type": name, "exact": True}
    if name == "NoneType":
        return {"value": "None", "type": name, "exact": True}
    _budget[0] -= 1
    if depth >= MAX_DEPTH or _budget[0] <= 0 or name in OPAQUE_TYPES or name.endswith("Dispatcher"):
        return {"value": f"<{name} object>", "type": name, "exact": False}
    flags = int(_type_of(obj)["tp_flags"])
    if name in ("ndarray", "numpy.ndarray"):
        found = _array(obj)
        if found is not None:
            return found
    if name == "tuple" or flags & PY_TPFLAGS_TUPLE_SUBCLASS:
        items = [describe(item, depth + 1) for item in _tuple_items(obj)]
        whole = len(items) == _size_of(obj)
        fields = _namedtuple_fields(_type_of(obj)) if name != "tuple" else None
        names = fields if fields is not None and len(fields) == len(items) else None
        children = [{"name": names[i] if names else f"[{i}]", **item} for i, item in enumerate(items)]
        texts = [item["value"] if item["exact"] else None for item in items]
        if name == "tuple":
            value = _join("(", texts, ")", single_comma=True) if whole else None
        elif names is not None and whole:
            value = _join(
                f"{name}(",
                [None if t is None else f"{n}={t}" for n, t in zip(names, texts, strict=True)],
                ")",
            )
        else:
            value = None
        return _container(name, value, children, len(items))
    if name == "list" or (flags & PY_TPFLAGS_LIST_SUBCLASS and name == "list"):
        items = [describe(item, depth + 1) for item in _list_items(obj)]
        whole = len(items) == _size_of(obj)
        texts = [item["value"] if item["exact"] else None for item in items]
        children = [{"name": f"[{i}]", **item} for i, item in enumerate(items)]
        return _container(name, _join("[", texts, "]") if whole else None, children, len(items))
    if name == "dict":
        pairs = [(describe(k, depth + 1), describe(v, depth + 1)) for k, v in dict_items(obj)]
        whole = len(pairs) == int(obj.cast(lookup_type("PyDictObject").pointer())["ma_used"])
        texts = [f"{k['value']}: {v['value']}" if k["exact"] and v["exact"] else None for k, v in pairs]
        children = [{"name": k["value"], **v} for k, v in pairs]
        return _container(name, _join("{", texts, "}") if whole else None, children, len(pairs))
    if name in ("set", "frozenset"):
        items = [describe(item, depth + 1) for item in _set_items(obj)]
        used = int(obj.cast(lookup_type("PySetObject").pointer())["used"])
        texts = [item["value"] if item["exact"] else None for item in items]
        children = [{"name": f"[{i}]", **item} for i, item in enumerate(items)]
        value = None
        if len(items) == used:
            value = "set()" if not items and name == "set" else _join("{", texts, "}")
            if name == "frozenset":
                value = None if value is None else ("frozenset()" if not items else f"frozenset({value})")
        return _container(name, value, children, len(items))
    fields = _instance_fields(obj)
    if fields is None:
        return {"value": f"<{name} object>", "type": name, "exact": False}
    try:
        typed = numba_typed_container(fields)
    except (LookupError, gdb.MemoryError) as exc:
        return {"value": f"<unavailable: {exc}>", "type": name, "exact": False}
    if typed is not None:
        return {"value": f"<{name} object>", "type": name, "exact": False, **typed}
    children = []
    for key, value in fields:
        if type_name(key) == "str":
            children.append({"name": unicode_text(key), **describe(value, depth + 1)})
    return {"value": f"<{name} object>", "type": name, "exact": False, "children": children}


# A numba.typed List or Dict: the attribute holding its Numba type, and that type's class name.
NUMBA_TYPED_ATTRIBUTES = {"_list_type": "ListType", "_dict_type": "DictType"}
NRT_MEMINFO_TYPE = "_nrt_python._MemInfo"  # the boxed meminfo held in `_opaque`


def numba_typed_container(fields):
    """A numba.typed List or Dict among an instance's fields: {"numba": {"type", "address"}} with its
    Numba type's name (the type object's `name`, the text Numba writes into DWARF) and the address of
    its NB_List or NB_Dict, for the adapter to decode as it decodes jitted frames; an empty untyped
    List as `[]`; None when the fields are not a typed container's. Errors name what was unreadable."""
    by_name = {unicode_text(key): value for key, value in fields if type_name(key) == "str"}
    attribute = next((a for a in NUMBA_TYPED_ATTRIBUTES if a in by_name), None)
    if attribute is None:
        return None
    numba_type = by_name[attribute]
    if type_name(numba_type) == "NoneType" and "_opaque" not in by_name:
        if attribute == "_list_type":  # List() before its first item: no type yet, no items
            return {"value": "[]"}
        return None
    if type_name(numba_type) != NUMBA_TYPED_ATTRIBUTES[attribute] or "_opaque" not in by_name:
        return None
    opaque = by_name["_opaque"]
    if type_name(opaque) != NRT_MEMINFO_TYPE:
        return None
    type_fields = _instance_fields(numba_type) or []
    type_text = next(
        (
            unicode_text(value)
            for key, value in type_fields
            if type_name(key) == "str" and unicode_text(key) == "name" and type_name(value) == "str"
        ),
        None,
    )
    if type_text is None:
        raise LookupError("element type unknown (the Numba type's name is unreadable)")
    # MemInfoObject: PyObject_HEAD, then NRT_MemInfo*; NRT_MemInfo: refct, dtor, dtor_info, data,
    # size. Its data is the one pointer to the NB_List / NB_Dict (numba/typed's boxing).
    word = _pointer_size()
    meminfo = _word(int(opaque) + lookup_type("PyObject").sizeof)
    if meminfo == 0:
        raise LookupError("typed container has no meminfo")
    data, size = _word(meminfo + 3 * word), _word(meminfo + 4 * word)
    if data == 0 or size != word:
        raise LookupError("typed container's meminfo does not hold one pointer")
    address = _word(data)
    if address == 0:
        raise LookupError("typed container has no payload")
    return {"numba": {"type": type_text, "address": address}}


def _container(name, value, children, count):
    if value is not None:
        return {"value": value, "type": name, "exact": True, "children": children}
    return {
        "value": f"<{name} object, {count} items shown>",
        "type": name,
        "exact": False,
        "children": children,
    }
