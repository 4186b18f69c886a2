/*
 * hprofgen: writes small synthetic HPROF files for the cases real dumps lack
 * (Android sub-records, objects before their classes, damaged files, several
 * dumps, every record kind...), one file per scenario, with known ids, names
 * and values.  tests/test_synthetic.c converts each file and checks that what
 * comes out is what was written here; keep the two in step.
 *
 *   hprofgen SCENARIO OUTFILE
 *   hprofgen --list            (one scenario per line: name, then what it holds)
 *
 * Only libc.  Byte layouts follow ../../shared/spec/hprof.md (big-endian
 * integers, identifiers of the header's size, sub-records without lengths).
 */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "string_churn.h"

/* ---- byte buffer ------------------------------------------------------- */

typedef struct buf {
	uint8_t *p;
	size_t n, cap;
} buf;

static unsigned idsize = 4; /* identifier size of the file being written */
/* A run of hole_len zero bytes the file has at offset hole_at of the buffer,
 * written as a hole (a sparse file) instead of being held in memory. */
static size_t hole_at;
static uint64_t hole_len;

static void put(buf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->n + n)
			cap *= 2;
		uint8_t *p = realloc(b->p, cap);
		if (!p) {
			fprintf(stderr, "hprofgen: out of memory\n");
			exit(1);
		}
		b->p = p;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void u1(buf *b, unsigned v)
{
	uint8_t c = (uint8_t)v;
	put(b, &c, 1);
}

static void u2(buf *b, unsigned v)
{
	u1(b, v >> 8);
	u1(b, v);
}

static void u4(buf *b, uint32_t v)
{
	u2(b, v >> 16);
	u2(b, v & 0xFFFF);
}

static void u8(buf *b, uint64_t v)
{
	u4(b, (uint32_t)(v >> 32));
	u4(b, (uint32_t)v);
}

static void id(buf *b, uint64_t v)
{
	if (idsize == 8)
		u8(b, v);
	else
		u4(b, (uint32_t)v);
}

static void patch4(buf *b, size_t at, uint32_t v)
{
	b->p[at] = (uint8_t)(v >> 24);
	b->p[at + 1] = (uint8_t)(v >> 16);
	b->p[at + 2] = (uint8_t)(v >> 8);
	b->p[at + 3] = (uint8_t)v;
}

/* ---- HPROF constants ---------------------------------------------------- */

enum {
	TAG_UTF8 = 0x01, TAG_LOAD_CLASS = 0x02, TAG_UNLOAD_CLASS = 0x03, TAG_FRAME = 0x04,
	TAG_TRACE = 0x05, TAG_ALLOC_SITES = 0x06, TAG_HEAP_SUMMARY = 0x07,
	TAG_START_THREAD = 0x0A, TAG_END_THREAD = 0x0B, TAG_HEAP_DUMP = 0x0C,
	TAG_CPU_SAMPLES = 0x0D, TAG_CONTROL_SETTINGS = 0x0E, TAG_HEAP_DUMP_SEGMENT = 0x1C,
	TAG_HEAP_DUMP_END = 0x2C
};
enum {
	ROOT_UNKNOWN = 0xFF, ROOT_JNI_GLOBAL = 0x01, ROOT_JNI_LOCAL = 0x02, ROOT_JAVA_FRAME = 0x03,
	ROOT_NATIVE_STACK = 0x04, ROOT_STICKY_CLASS = 0x05, ROOT_THREAD_BLOCK = 0x06,
	ROOT_MONITOR_USED = 0x07, ROOT_THREAD_OBJECT = 0x08,
	ROOT_INTERNED_STRING = 0x89, ROOT_FINALIZING = 0x8A, ROOT_DEBUGGER = 0x8B,
	ROOT_REFERENCE_CLEANUP = 0x8C, ROOT_VM_INTERNAL = 0x8D, ROOT_JNI_MONITOR = 0x8E,
	ROOT_UNREACHABLE = 0x90,
	SUB_CLASS_DUMP = 0x20, SUB_INSTANCE_DUMP = 0x21, SUB_OBJECT_ARRAY_DUMP = 0x22,
	SUB_PRIMITIVE_ARRAY_DUMP = 0x23, SUB_PRIMITIVE_ARRAY_NODATA = 0xC3,
	SUB_HEAP_DUMP_INFO = 0xFE
};
enum { T_OBJECT = 2, T_BOOLEAN = 4, T_CHAR = 5, T_FLOAT = 6, T_DOUBLE = 7, T_BYTE = 8,
       T_SHORT = 9, T_INT = 10, T_LONG = 11 };

static unsigned tsize(unsigned t)
{
	switch (t) {
	case T_OBJECT: return idsize;
	case T_BOOLEAN: case T_BYTE: return 1;
	case T_CHAR: case T_SHORT: return 2;
	case T_FLOAT: case T_INT: return 4;
	case T_DOUBLE: case T_LONG: return 8;
	}
	fprintf(stderr, "hprofgen: bad basic type %u\n", t);
	exit(1);
}

/* A value of basic type t, big-endian, from the low bits of v. */
static void value(buf *b, unsigned t, uint64_t v)
{
	switch (tsize(t)) {
	case 1: u1(b, (unsigned)v); break;
	case 2: u2(b, (unsigned)v & 0xFFFF); break;
	case 4: u4(b, (uint32_t)v); break;
	default: u8(b, v); break;
	}
}

/* ---- top-level records -------------------------------------------------- */

static void header(buf *b, const char *magic, unsigned ids, uint64_t ms)
{
	idsize = ids;
	put(b, magic, strlen(magic) + 1);
	u4(b, ids);
	u8(b, ms);
}

/* Starts a record; returns where its length goes (patched by rec_end). */
static size_t rec_begin(buf *b, unsigned tag)
{
	u1(b, tag);
	u4(b, 0); /* time */
	size_t at = b->n;
	u4(b, 0);
	return at;
}

static void rec_end(buf *b, size_t at)
{
	patch4(b, at, (uint32_t)(b->n - at - 4));
}

static void end_thread(buf *b, uint32_t serial)
{
	size_t at = rec_begin(b, TAG_END_THREAD);
	u4(b, serial);
	rec_end(b, at);
}

/* Ends the HEAP DUMP SEGMENT begun at at, and the run with HEAP DUMP END. */
static void end_segments(buf *b, size_t at)
{
	rec_end(b, at);
	rec_end(b, rec_begin(b, TAG_HEAP_DUMP_END));
}

static void utf8(buf *b, uint64_t sid, const char *s)
{
	size_t at = rec_begin(b, TAG_UTF8);
	id(b, sid);
	put(b, s, strlen(s));
	rec_end(b, at);
}

/* UTF8 records for the strings of the array names, ids first, first + 1... */
#define UTF8_ALL(b, first, names) \
	for (unsigned utf8_i = 0; utf8_i < sizeof(names) / sizeof *(names); utf8_i++) \
		utf8((b), (first) + utf8_i, (names)[utf8_i])

static void load_class(buf *b, uint32_t serial, uint64_t cls, uint64_t name)
{
	size_t at = rec_begin(b, TAG_LOAD_CLASS);
	u4(b, serial);
	id(b, cls);
	u4(b, 1); /* stack-trace serial */
	id(b, name);
	rec_end(b, at);
}

static void trace(buf *b, uint32_t serial, uint32_t thread, unsigned nframes,
                  const uint64_t *frames)
{
	size_t at = rec_begin(b, TAG_TRACE);
	u4(b, serial);
	u4(b, thread);
	u4(b, nframes);
	for (unsigned i = 0; i < nframes; i++)
		id(b, frames[i]);
	rec_end(b, at);
}

static void frame(buf *b, uint64_t fid, uint64_t method, uint64_t sig, uint64_t file,
                  uint32_t class_serial, int32_t line)
{
	size_t at = rec_begin(b, TAG_FRAME);
	id(b, fid);
	id(b, method);
	id(b, sig);
	id(b, file);
	u4(b, class_serial);
	u4(b, (uint32_t)line);
	rec_end(b, at);
}

/* START THREAD: thread serial, object, trace serial, names (UTF8 ids). */
static void start_thread(buf *b, uint32_t serial, uint64_t obj, uint32_t trace_serial,
                         uint64_t name, uint64_t group, uint64_t parent)
{
	size_t at = rec_begin(b, TAG_START_THREAD);
	u4(b, serial);
	id(b, obj);
	u4(b, trace_serial);
	id(b, name);
	id(b, group);
	id(b, parent);
	rec_end(b, at);
}

/* ---- heap-dump sub-records ---------------------------------------------- */

typedef struct field {
	uint64_t name;       /* UTF8 id; for constant-pool entries the pool index */
	unsigned type;
	uint64_t value;      /* statics and constant-pool entries only */
} field;

typedef struct cdump {
	uint64_t id, super, loader, signers, domain;
	uint32_t isize;
	const field *cpool;
	unsigned ncp;
	const field *statics;
	unsigned nst;
	const field *fields;
	unsigned nif;
} cdump;

static void class_dump(buf *b, const cdump *c)
{
	u1(b, SUB_CLASS_DUMP);
	id(b, c->id);
	u4(b, 1);
	id(b, c->super);
	id(b, c->loader);
	id(b, c->signers);
	id(b, c->domain);
	id(b, 0);
	id(b, 0);
	u4(b, c->isize);
	u2(b, c->ncp);
	for (unsigned i = 0; i < c->ncp; i++) {
		u2(b, (unsigned)c->cpool[i].name);
		u1(b, c->cpool[i].type);
		value(b, c->cpool[i].type, c->cpool[i].value);
	}
	u2(b, c->nst);
	for (unsigned i = 0; i < c->nst; i++) {
		id(b, c->statics[i].name);
		u1(b, c->statics[i].type);
		value(b, c->statics[i].type, c->statics[i].value);
	}
	u2(b, c->nif);
	for (unsigned i = 0; i < c->nif; i++) {
		id(b, c->fields[i].name);
		u1(b, c->fields[i].type);
	}
}

/* An array class or any class without fields. */
static void class_plain(buf *b, uint64_t cls, uint64_t super, uint32_t isize)
{
	cdump c = { .id = cls, .super = super, .isize = isize };
	class_dump(b, &c);
}

static void instance_dump(buf *b, uint64_t obj, uint64_t cls, const buf *fields)
{
	u1(b, SUB_INSTANCE_DUMP);
	id(b, obj);
	u4(b, 1);
	id(b, cls);
	u4(b, (uint32_t)fields->n);
	put(b, fields->p, fields->n);
}

static void object_array(buf *b, uint64_t obj, uint64_t cls, unsigned n, const uint64_t *elems)
{
	u1(b, SUB_OBJECT_ARRAY_DUMP);
	id(b, obj);
	u4(b, 1);
	u4(b, n);
	id(b, cls);
	for (unsigned i = 0; i < n; i++)
		id(b, elems[i]);
}

/* data: count elements already in file order (big-endian, or as the VM
 * stores them for byte[]). */
static void primitive_array(buf *b, uint64_t obj, unsigned type, uint32_t count, const void *data)
{
	u1(b, SUB_PRIMITIVE_ARRAY_DUMP);
	id(b, obj);
	u4(b, 1);
	u4(b, count);
	u1(b, type);
	put(b, data, (size_t)count * tsize(type));
}

static void byte_array(buf *b, uint64_t obj, const char *bytes, uint32_t n)
{
	primitive_array(b, obj, T_BYTE, n, bytes);
}

/* A char[] from UTF-16 code units. */
static void char_array(buf *b, uint64_t obj, const uint16_t *units, uint32_t n)
{
	u1(b, SUB_PRIMITIVE_ARRAY_DUMP);
	id(b, obj);
	u4(b, 1);
	u4(b, n);
	u1(b, T_CHAR);
	for (uint32_t i = 0; i < n; i++)
		u2(b, units[i]);
}

static void int_array(buf *b, uint64_t obj, const int32_t *v, uint32_t n)
{
	u1(b, SUB_PRIMITIVE_ARRAY_DUMP);
	id(b, obj);
	u4(b, 1);
	u4(b, n);
	u1(b, T_INT);
	for (uint32_t i = 0; i < n; i++)
		u4(b, (uint32_t)v[i]);
}

static void root_simple(buf *b, unsigned tag, uint64_t obj)
{
	u1(b, tag);
	id(b, obj);
}

static void root_thread_frame(buf *b, unsigned tag, uint64_t obj, uint32_t thread, uint32_t frame)
{
	u1(b, tag);
	id(b, obj);
	u4(b, thread);
	u4(b, frame);
}

static void heap_info(buf *b, uint32_t heap, uint64_t name)
{
	u1(b, SUB_HEAP_DUMP_INFO);
	u4(b, heap);
	id(b, name);
}

/* ---- scenarios ----------------------------------------------------------- */

/*
 * android4: what an ART (Android 8+) dump holds that HotSpot's does not.
 * 1.0.3, 4-byte ids, human-readable class names.
 */
static void scen_android4(buf *b)
{
	header(b, "JAVA PROFILE 1.0.3", 4, 1500000000000ULL);
	/* Names (ART numbers its string ids from 0x400000). */
	enum {
		S_OBJECT = 0x400001, S_CLASS, S_STRING, S_CHARS, S_BYTES, S_INTS, S_THING,
		S_KLASS, S_MONITOR, S_COUNT, S_HASH, S_VALUE, S_OVERHEAD, S_CLASSLOADER,
		S_INSTANCE, S_LABEL, S_SIZE, S_APP, S_ZYGOTE, S_IMAGE
	};
	static const char *const names[] = {
		"java.lang.Object", "java.lang.Class", "java.lang.String", "char[]", "byte[]",
		"int[]", "com.example.Thing", "shadow$_klass_", "shadow$_monitor_", "count", "hash",
		"value", "$classOverhead", "$class$classLoader", "INSTANCE", "label", "size", "app",
		"zygote", "image"
	};
	UTF8_ALL(b, S_OBJECT, names);
	/* Classes (ids are low 32 bits of addresses). */
	enum {
		C_OBJECT = 0x6F000000, C_CLASS = 0x6F000100, C_STRING = 0x6F000200,
		C_CHARS = 0x6F000300, C_BYTES = 0x6F000400, C_INTS = 0x6F000500,
		C_THING = 0x70001000
	};
	load_class(b, 1, C_OBJECT, S_OBJECT);
	load_class(b, 2, C_CLASS, S_CLASS);
	load_class(b, 3, C_STRING, S_STRING);
	load_class(b, 4, C_CHARS, S_CHARS);
	load_class(b, 5, C_BYTES, S_BYTES);
	load_class(b, 6, C_INTS, S_INTS);
	load_class(b, 7, C_THING, S_THING);
	trace(b, 0, 0, 0, NULL); /* ART's dummy trace */

	/* Segment 1: roots (not tied to a heap: heap 0). */
	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	root_simple(b, ROOT_INTERNED_STRING, 0x12C00000);
	root_simple(b, ROOT_FINALIZING, 0x13000000);
	root_simple(b, ROOT_DEBUGGER, 0x13000100);
	root_simple(b, ROOT_REFERENCE_CLEANUP, 0x13000300);
	root_simple(b, ROOT_VM_INTERNAL, C_OBJECT);
	root_thread_frame(b, ROOT_JNI_MONITOR, 0x13000000, 7, 0xFFFFFFFF);
	root_simple(b, ROOT_UNREACHABLE, 0x13000200);
	u1(b, ROOT_JNI_GLOBAL);
	id(b, 0x13000000);
	id(b, 0); /* ART writes 0 for the global-ref id */
	rec_end(b, at);

	/* Segment 2: the boot image: core classes. */
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	heap_info(b, 0x49, S_IMAGE);
	{
		static const field object_fields[] = { { S_KLASS, T_OBJECT, 0 }, { S_MONITOR, T_INT, 0 } };
		cdump c = { .id = C_OBJECT, .isize = 8, .fields = object_fields, .nif = 2 };
		class_dump(b, &c);
	}
	class_plain(b, C_CLASS, C_OBJECT, 0);
	{
		/* ART O+: declared count and hash, plus the synthetic value. */
		static const field string_fields[] = {
			{ S_COUNT, T_INT, 0 }, { S_HASH, T_INT, 0 }, { S_VALUE, T_OBJECT, 0 }
		};
		cdump c = { .id = C_STRING, .super = C_OBJECT, .isize = 16, .fields = string_fields,
		            .nif = 3 };
		class_dump(b, &c);
	}
	class_plain(b, C_CHARS, C_OBJECT, 0);
	class_plain(b, C_BYTES, C_OBJECT, 0);
	class_plain(b, C_INTS, C_OBJECT, 0);
	rec_end(b, at);

	/* Segment 3: the zygote: a class with its overhead array, a compressed
	 * String (byte[] value). */
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	root_simple(b, ROOT_VM_INTERNAL, 0x12C00000); /* ART: right before the object */
	heap_info(b, 0x5A, S_ZYGOTE);
	root_simple(b, ROOT_VM_INTERNAL, C_THING); /* after HEAP DUMP INFO: heap 'Z' */
	{
		static const char zeros[12] = { 0 };
		byte_array(b, C_THING | 1, zeros, sizeof zeros);
		field statics[] = {
			{ S_OVERHEAD, T_OBJECT, C_THING | 1 },
			{ S_CLASSLOADER, T_OBJECT, 0 },
			{ S_INSTANCE, T_OBJECT, 0x13000000 },
		};
		static const field thing_fields[] = { { S_LABEL, T_OBJECT, 0 }, { S_SIZE, T_INT, 0 } };
		cdump c = { .id = C_THING, .super = C_OBJECT, .isize = 16, .statics = statics,
		            .nst = 3, .fields = thing_fields, .nif = 2 };
		class_dump(b, &c);
	}
	{
		buf f = { 0 };
		u4(&f, 5);          /* count */
		u4(&f, 99162322);   /* hash */
		id(&f, 0x12C0000C); /* value: the inline characters */
		id(&f, C_STRING);   /* shadow$_klass_ */
		u4(&f, 0);          /* shadow$_monitor_ */
		instance_dump(b, 0x12C00000, C_STRING, &f);
		free(f.p);
		byte_array(b, 0x12C0000C, "hello", 5);
	}
	rec_end(b, at);

	/* Segment 4: the app heap: an instance, a UTF-16 String, a NODATA array. */
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	heap_info(b, 0x41, S_APP);
	{
		buf f = { 0 };
		id(&f, 0x13000100); /* label */
		u4(&f, 42);         /* size */
		id(&f, C_THING);
		u4(&f, 0);
		instance_dump(b, 0x13000000, C_THING, &f);
		f.n = 0;
		u4(&f, 3);
		u4(&f, 0);
		id(&f, 0x1300010C);
		id(&f, C_STRING);
		u4(&f, 0);
		instance_dump(b, 0x13000100, C_STRING, &f);
		free(f.p);
		static const uint16_t zhuk[] = { 0x0416, 0x0443, 0x043A }; /* Жук */
		char_array(b, 0x1300010C, zhuk, 3);
	}
	u1(b, SUB_PRIMITIVE_ARRAY_NODATA);
	id(b, 0x13000200);
	u4(b, 0);
	u4(b, 50);
	u1(b, T_INT);
	rec_end(b, at);

	/* Segment 5: the app heap named again (no second hprof.heap record), and
	 * segment 6 without HEAP DUMP INFO: its object is in the default heap. */
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	heap_info(b, 0x41, S_APP);
	{
		static const int32_t v[] = { 1, 2, 3, 4 };
		int_array(b, 0x13000300, v, 4);
	}
	rec_end(b, at);
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	{
		static const int32_t v[] = { 5 };
		int_array(b, 0x13000400, v, 1);
	}
	end_segments(b, at);
}

/*
 * instances-first: the order of the JVMTI hprof agent and of ART: objects
 * (and the arrays of their Strings) before the CLASS DUMPs of their classes,
 * the superclass dumped last of all.  JDK 8 Strings (char[] value).
 */
enum {
	IF_OBJECT = 0x50, IF_BASE = 0x100, IF_SUB = 0x200, IF_STRING = 0x300, IF_CHARS = 0x400,
	IF_OBJECTS = 0x500
};
static void scen_instances_first(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 4, 1200000000000ULL);
	enum {
		S_OBJECT = 1, S_BASE, S_SUB, S_STRING, S_CHARS, S_OBJECTS, S_NAME, S_N, S_BASEF,
		S_OTHER, S_HASH, S_VALUE
	};
	static const char *const names[] = {
		"java/lang/Object", "com/example/Base", "com/example/Sub", "java/lang/String", "[C",
		"[Ljava/lang/Object;", "name", "n", "base", "other", "hash", "value"
	};
	UTF8_ALL(b, S_OBJECT, names);
	load_class(b, 1, IF_OBJECT, S_OBJECT);
	load_class(b, 2, IF_BASE, S_BASE);
	load_class(b, 3, IF_SUB, S_SUB);
	load_class(b, 4, IF_STRING, S_STRING);
	load_class(b, 5, IF_CHARS, S_CHARS);
	load_class(b, 6, IF_OBJECTS, S_OBJECTS);

	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	buf f = { 0 };
	/* String 0x5100 before its char[] and before the String class. */
	u4(&f, 0);
	id(&f, 0x5200);
	instance_dump(b, 0x5100, IF_STRING, &f);
	static const uint16_t early[] = { 'e', 'a', 'r', 'l', 'y' };
	char_array(b, 0x5200, early, 5);
	/* char[] 0x5400 before its String 0x5300. */
	static const uint16_t cached[] = { 'c', 'a', 'c', 'h', 'e', 'd' };
	char_array(b, 0x5400, cached, 6);
	f.n = 0;
	u4(&f, 0);
	id(&f, 0x5400);
	instance_dump(b, 0x5300, IF_STRING, &f);
	/* Sub 0x5000: own fields name, n, then Base's base, other. */
	f.n = 0;
	id(&f, 0x5100);
	u4(&f, 42);
	u8(&f, 7);
	id(&f, 0x5000);
	instance_dump(b, 0x5000, IF_SUB, &f);
	{
		static const uint64_t elems[] = { 0x5000, 0x5300 };
		object_array(b, 0x6000, IF_OBJECTS, 2, elems);
	}
	{
		static const field sub_fields[] = { { S_NAME, T_OBJECT, 0 }, { S_N, T_INT, 0 } };
		cdump c = { .id = IF_SUB, .super = IF_BASE, .isize = 20, .fields = sub_fields, .nif = 2 };
		class_dump(b, &c);
	}
	{
		static const field string_fields[] = { { S_HASH, T_INT, 0 }, { S_VALUE, T_OBJECT, 0 } };
		cdump c = { .id = IF_STRING, .super = IF_OBJECT, .isize = 8, .fields = string_fields,
		            .nif = 2 };
		class_dump(b, &c);
	}
	class_plain(b, IF_CHARS, IF_OBJECT, 0);
	class_plain(b, IF_OBJECTS, IF_OBJECT, 0);
	class_plain(b, IF_OBJECT, 0, 0);
	rec_end(b, at);
	/* The superclass, last, in a segment of its own; then one more Sub
	 * after every class is known. */
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	{
		static const field base_fields[] = { { S_BASEF, T_LONG, 0 }, { S_OTHER, T_OBJECT, 0 } };
		cdump c = { .id = IF_BASE, .super = IF_OBJECT, .isize = 12, .fields = base_fields,
		            .nif = 2 };
		class_dump(b, &c);
	}
	f.n = 0;
	id(&f, 0);
	u4(&f, 43);
	u8(&f, 8);
	id(&f, 0x5000);
	instance_dump(b, 0x5010, IF_SUB, &f);
	free(f.p);
	end_segments(b, at);
}

/* A small HotSpot-like file with 4-byte ids: java/lang/Object 0x100,
 * com/example/Item 0x200 (fields next: object, n: int), [I 0x300 (and the
 * names of java/lang/String 0x400 with one field value, [C 0x500, which
 * string_classes dumps), then one open heap-dump record of the given tag;
 * returns where its length goes. */
enum { SM_OBJECT = 0x100, SM_ITEM = 0x200, SM_INTS = 0x300, SM_STRING = 0x400, SM_CHARS = 0x500 };
enum { SM_S_OBJECT = 1, SM_S_ITEM, SM_S_INTS, SM_S_NEXT, SM_S_N, SM_S_STRING, SM_S_CHARS,
       SM_S_VALUE };
static size_t small_start(buf *b, const char *magic, unsigned tag)
{
	header(b, magic, 4, 1300000000000ULL);
	utf8(b, SM_S_OBJECT, "java/lang/Object");
	utf8(b, SM_S_ITEM, "com/example/Item");
	utf8(b, SM_S_INTS, "[I");
	utf8(b, SM_S_NEXT, "next");
	utf8(b, SM_S_N, "n");
	utf8(b, SM_S_STRING, "java/lang/String");
	utf8(b, SM_S_CHARS, "[C");
	utf8(b, SM_S_VALUE, "value");
	load_class(b, 1, SM_OBJECT, SM_S_OBJECT);
	load_class(b, 2, SM_ITEM, SM_S_ITEM);
	load_class(b, 3, SM_INTS, SM_S_INTS);
	load_class(b, 4, SM_STRING, SM_S_STRING);
	load_class(b, 5, SM_CHARS, SM_S_CHARS);
	return rec_begin(b, tag);
}

static void string_classes(buf *b)
{
	static const field string_fields[] = { { SM_S_VALUE, T_OBJECT, 0 } };
	cdump c = { .id = SM_STRING, .super = SM_OBJECT, .isize = 4, .fields = string_fields,
	            .nif = 1 };
	class_dump(b, &c);
	class_plain(b, SM_CHARS, SM_OBJECT, 0);
}

static void string(buf *b, uint64_t obj, uint64_t value)
{
	buf f = { 0 };
	id(&f, value);
	instance_dump(b, obj, SM_STRING, &f);
	free(f.p);
}

static void small_classes(buf *b)
{
	static const field item_fields[] = { { SM_S_NEXT, T_OBJECT, 0 }, { SM_S_N, T_INT, 0 } };
	class_plain(b, SM_OBJECT, 0, 0);
	cdump c = { .id = SM_ITEM, .super = SM_OBJECT, .isize = 8, .fields = item_fields, .nif = 2 };
	class_dump(b, &c);
	class_plain(b, SM_INTS, SM_OBJECT, 0);
}

static void item(buf *b, uint64_t obj, uint64_t next, int32_t n)
{
	buf f = { 0 };
	id(&f, next);
	u4(&f, (uint32_t)n);
	instance_dump(b, obj, SM_ITEM, &f);
	free(f.p);
}

/* The small dumps' classes and two Items, 0x1000 (n 1) -> 0x1010 (n 2). */
static void small_pair(buf *b)
{
	small_classes(b);
	item(b, 0x1000, 0x1010, 1);
	item(b, 0x1010, 0, 2);
}

/* duplicate-ids: objects whose id was met before in the same dump (the
 * first one is kept, with its subtype row or without), after runs of
 * ascending ids and as the highest id so far; and an object below the
 * highest id that is no duplicate. */
static void scen_duplicate_ids(buf *b)
{
	static const uint16_t first[] = { 'f', 'i', 'r', 's', 't' };
	static const uint16_t second[] = { 's', 'e', 'c', 'o', 'n', 'd' };
	static const int32_t three[] = { 1, 2, 3 };
	buf none = { 0 };
	size_t at = small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT);
	small_classes(b);
	string_classes(b);
	item(b, 0x1000, 0, 1);
	item(b, 0x1010, 0x1000, 2);
	item(b, 0x1000, 0x1010, 9);              /* duplicate: n 1 and no next kept */
	instance_dump(b, 0x1020, SM_OBJECT, &none);  /* no field: no subtype row */
	char_array(b, 0x3000, first, 5);
	string(b, 0x4000, 0x3000);
	char_array(b, 0x3100, second, 6);
	string(b, 0x4000, 0x3100);               /* duplicate String: "first" kept */
	string(b, 0x1020, 0x3100);               /* duplicate of the plain object */
	int_array(b, 0x4800, three, 3);
	instance_dump(b, 0x5000, SM_OBJECT, &none);
	char_array(b, 0x5000, second, 6);        /* duplicate of the highest id so far: no
	                                          * node_primitive_array row for it */
	item(b, 0x1030, 0x5000, 5);              /* below the highest, new */
	u1(b, ROOT_JNI_GLOBAL);
	id(b, 0x1000);
	id(b, 0xAAA0);
	end_segments(b, at);
}

/* truncated: a valid dump cut inside an INSTANCE DUMP (3 of its 8 field
 * bytes are there). */
static void scen_truncated(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT);
	small_classes(b);
	item(b, 0x1000, 0x1010, 1);
	size_t cut = b->n;
	item(b, 0x1010, 0, 2);
	static const int32_t v[] = { 1, 2, 3 };
	int_array(b, 0x2000, v, 3);
	end_segments(b, at);
	b->n = cut + 1 + 2 * idsize + 8 + 3;
}

/* unknown-tag: a record with the unknown top-level tag 0x55 between the
 * LOAD CLASS records and the heap dump; everything else is valid. */
static void scen_unknown_tag(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 4, 1300000000000ULL);
	utf8(b, SM_S_OBJECT, "java/lang/Object");
	utf8(b, SM_S_ITEM, "com/example/Item");
	utf8(b, SM_S_INTS, "[I");
	utf8(b, SM_S_NEXT, "next");
	utf8(b, SM_S_N, "n");
	load_class(b, 1, SM_OBJECT, SM_S_OBJECT);
	size_t at = rec_begin(b, 0x55);
	put(b, "\x21\x20\xFE\x01\x02\x03\x04", 7); /* looks like sub-records: must be skipped */
	rec_end(b, at);
	load_class(b, 2, SM_ITEM, SM_S_ITEM);
	load_class(b, 3, SM_INTS, SM_S_INTS);
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	small_pair(b);
	end_segments(b, at);
}

/* unknown-after-dump: a 1.0.1 HEAP DUMP whose length is right, then a
 * record of the unknown tag 0x08 (a sub-record's tag too: ROOT THREAD
 * OBJECT), then an END THREAD: read through a pipe, where the file's size
 * cannot tell, the dump is not taken for one whose length wrapped. */
static void scen_unknown_after_dump(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.1", TAG_HEAP_DUMP);
	small_pair(b);
	rec_end(b, at);
	at = rec_begin(b, 0x08);
	put(b, "\x21\x20\xFE\x01", 4);
	rec_end(b, at);
	end_thread(b, 1);
}

/* unknown-subtag: a valid CLASS DUMP and root, then the sub-record tag 0x42
 * (sub-records carry no length: the reader cannot go on). */
static void scen_unknown_subtag(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT);
	small_classes(b);
	root_simple(b, ROOT_STICKY_CLASS, SM_ITEM);
	u1(b, 0x42);
	put(b, "\0\0\x10\0\0\0\0\x01", 8);
	item(b, 0x1000, 0, 1);
	end_segments(b, at);
}

/* two-dumps: 1.0.1 with two HEAP DUMP records (the hprof agent's "dump at
 * exit and on request"); the same ids in both, with other contents.  String
 * 0x4000's char[] 0x3000 is "first" in dump 0 (dumped before the String)
 * and "second" in dump 1 (dumped after it). */
static void scen_two_dumps(buf *b)
{
	static const uint16_t first[] = { 'f', 'i', 'r', 's', 't' };
	static const uint16_t second[] = { 's', 'e', 'c', 'o', 'n', 'd' };
	size_t at = small_start(b, "JAVA PROFILE 1.0.1", TAG_HEAP_DUMP);
	small_classes(b);
	string_classes(b);
	item(b, 0x1000, 0, 1);
	static const int32_t one[] = { 10 }, two[] = { 10, 20 };
	int_array(b, 0x2000, one, 1);
	char_array(b, 0x3000, first, 5);
	string(b, 0x4000, 0x3000);
	u1(b, ROOT_JNI_GLOBAL);
	id(b, 0x1000);
	id(b, 0xAAA0);
	rec_end(b, at);
	at = rec_begin(b, TAG_HEAP_DUMP);
	small_classes(b);
	string_classes(b);
	item(b, 0x1000, 0x1100, 2);
	item(b, 0x1100, 0x1000, 3);
	int_array(b, 0x2000, two, 2);
	string(b, 0x4000, 0x3000);
	char_array(b, 0x3000, second, 6);
	u1(b, ROOT_JNI_GLOBAL);
	id(b, 0x1000);
	id(b, 0xAAA1);
	rec_end(b, at);
}

/* segments: 1.0.2 with five 0x1C segments (one empty) and 0x2C; a String
 * in one segment and its byte[] in a later one. JDK 11 String layout. */
enum { SG_STRING = 0x400, SG_BYTES = 0x500, SG_OBJECTS = 0x600 };
static void scen_segments(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 4, 1400000000000ULL);
	enum { S_OBJECT = 1, S_ITEM, S_INTS, S_NEXT, S_N, S_STRING, S_BYTES, S_OBJECTS, S_HASH,
	       S_CODER, S_VALUE };
	static const char *const names[] = { "java/lang/Object", "com/example/Item", "[I", "next", "n",
		"java/lang/String", "[B", "[Ljava/lang/Object;", "hash", "coder", "value" };
	UTF8_ALL(b, S_OBJECT, names);
	load_class(b, 1, SM_OBJECT, S_OBJECT);
	load_class(b, 2, SM_ITEM, S_ITEM);
	load_class(b, 3, SM_INTS, S_INTS);
	load_class(b, 4, SG_STRING, S_STRING);
	load_class(b, 5, SG_BYTES, S_BYTES);
	load_class(b, 6, SG_OBJECTS, S_OBJECTS);

	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	small_classes(b);
	{
		static const field string_fields[] = {
			{ S_HASH, T_INT, 0 }, { S_CODER, T_BYTE, 0 }, { S_VALUE, T_OBJECT, 0 }
		};
		cdump c = { .id = SG_STRING, .super = SM_OBJECT, .isize = 9, .fields = string_fields,
		            .nif = 3 };
		class_dump(b, &c);
	}
	class_plain(b, SG_BYTES, SM_OBJECT, 0);
	class_plain(b, SG_OBJECTS, SM_OBJECT, 0);
	rec_end(b, at);
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT); /* empty */
	rec_end(b, at);
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	item(b, 0x1000, 0x1010, 1);
	item(b, 0x1010, 0x1020, 2);
	item(b, 0x1020, 0, 3);
	{
		buf f = { 0 };
		u4(&f, 0);
		u1(&f, 0);
		id(&f, 0x2100);
		instance_dump(b, 0x2000, SG_STRING, &f);
		free(f.p);
	}
	rec_end(b, at);
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	byte_array(b, 0x2100, "segmented", 9);
	{
		static const uint64_t elems[] = { 0x1000, 0, 0x2000 };
		object_array(b, 0x3000, SG_OBJECTS, 3, elems);
		static const int32_t v[] = { 1, 2, 3, 4, 5 };
		int_array(b, 0x3100, v, 5);
	}
	rec_end(b, at);
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	root_simple(b, ROOT_STICKY_CLASS, SM_ITEM);
	u1(b, ROOT_JNI_GLOBAL);
	id(b, 0x3000);
	id(b, 0x9999);
	end_segments(b, at);
}

/* id8: 8-byte ids above 4 GiB, HotSpot JDK 17 names and String layout
 * (hashIsZero, hash, coder, value): a LATIN1, a UTF16 (little-endian, with a
 * surrogate pair) and an empty compact String. */
static void scen_id8(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 8, 1700000000000ULL);
	const uint64_t S = 0x7F3A00001000ULL; /* Symbol addresses */
	enum { S_OBJECT, S_CLASS, S_STRING, S_BYTES, S_STRINGS, S_HOLDER, S_HASHZ, S_HASH, S_CODER,
	       S_VALUE, S_TEXTS, S_COUNT, S_LATIN, S_UTF16, S_BIG };
	static const char *const names[] = { "java/lang/Object", "java/lang/Class",
		"java/lang/String", "[B", "[Ljava/lang/String;", "com/example/Holder", "hashIsZero",
		"hash", "coder", "value", "TEXTS", "COUNT", "latin", "utf16", "big" };
	for (unsigned i = 0; i < sizeof names / sizeof *names; i++)
		utf8(b, S + 16 * i, names[i]);
	const uint64_t C = 0x712000000ULL;
	const uint64_t C_OBJECT = C, C_CLASS = C + 0x500, C_STRING = C + 0x100, C_BYTES = C + 0x200,
	               C_STRINGS = C + 0x300, C_HOLDER = C + 0x400;
	load_class(b, 1, C_OBJECT, S + 16 * S_OBJECT);
	load_class(b, 2, C_CLASS, S + 16 * S_CLASS);
	load_class(b, 3, C_STRING, S + 16 * S_STRING);
	load_class(b, 4, C_BYTES, S + 16 * S_BYTES);
	load_class(b, 5, C_STRINGS, S + 16 * S_STRINGS);
	load_class(b, 6, C_HOLDER, S + 16 * S_HOLDER);
	const uint64_t O = 0x712100000ULL;

	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	class_plain(b, C_OBJECT, 0, 0);
	class_plain(b, C_CLASS, C_OBJECT, 0);
	{
		field string_fields[] = {
			{ S + 16 * S_HASHZ, T_BOOLEAN, 0 }, { S + 16 * S_HASH, T_INT, 0 },
			{ S + 16 * S_CODER, T_BYTE, 0 }, { S + 16 * S_VALUE, T_OBJECT, 0 }
		};
		cdump c = { .id = C_STRING, .super = C_OBJECT, .isize = 14, .fields = string_fields,
		            .nif = 4 };
		class_dump(b, &c);
	}
	class_plain(b, C_BYTES, C_OBJECT, 0);
	class_plain(b, C_STRINGS, C_OBJECT, 0);
	{
		field statics[] = { { S + 16 * S_TEXTS, T_OBJECT, O + 0x300 },
		                    { S + 16 * S_COUNT, T_INT, 3 } };
		field fields[] = { { S + 16 * S_LATIN, T_OBJECT, 0 }, { S + 16 * S_UTF16, T_OBJECT, 0 },
		                   { S + 16 * S_BIG, T_LONG, 0 } };
		cdump c = { .id = C_HOLDER, .super = C_OBJECT, .isize = 24, .statics = statics,
		            .nst = 2, .fields = fields, .nif = 3 };
		class_dump(b, &c);
	}
	buf f = { 0 };
	/* LATIN1 "naïve café" */
	u1(&f, 0);
	u4(&f, 0);
	u1(&f, 0);
	id(&f, O + 0x10);
	instance_dump(b, O, C_STRING, &f);
	byte_array(b, O + 0x10, "na\xEFve caf\xE9", 10);
	/* UTF16 "Ωmega 😀": little-endian units */
	f.n = 0;
	u1(&f, 0);
	u4(&f, 0x12345678);
	u1(&f, 1);
	id(&f, O + 0x110);
	instance_dump(b, O + 0x100, C_STRING, &f);
	byte_array(b, O + 0x110, "\xA9\x03m\0e\0g\0a\0 \0\x3D\xD8\x00\xDE", 16);
	/* "" */
	f.n = 0;
	u1(&f, 1);
	u4(&f, 0);
	u1(&f, 0);
	id(&f, O + 0x210);
	instance_dump(b, O + 0x200, C_STRING, &f);
	byte_array(b, O + 0x210, "", 0);
	{
		uint64_t elems[] = { O, O + 0x100, O + 0x200 };
		object_array(b, O + 0x300, C_STRINGS, 3, elems);
	}
	f.n = 0;
	id(&f, O);
	id(&f, O + 0x100);
	u8(&f, 0x0123456789ABCDEFULL);
	instance_dump(b, O + 0x400, C_HOLDER, &f);
	free(f.p);
	root_simple(b, ROOT_STICKY_CLASS, C_HOLDER);
	u1(b, ROOT_JNI_GLOBAL);
	id(b, O + 0x400);
	id(b, 0x7F3A0000BEEFULL);
	end_segments(b, at);
}

/* jdk6-strings: JDK 6 Strings (hash, count, offset, value): slices of one
 * shared char[] "Hello, World"; one String before the array (waits for
 * it), two after (from the cache), one whose array is never dumped. */
static void scen_jdk6_strings(buf *b)
{
	header(b, "JAVA PROFILE 1.0.1", 8, 1250000000000ULL);
	enum { S_OBJECT = 1, S_STRING, S_CHARS, S_HASH, S_COUNT, S_OFFSET, S_VALUE };
	static const char *const names[] = { "java/lang/Object", "java/lang/String", "[C", "hash",
		"count", "offset", "value" };
	UTF8_ALL(b, S_OBJECT, names);
	enum { C_OBJECT = 0x10000000, C_STRING = 0x10000100, C_CHARS = 0x10000200 };
	load_class(b, 1, C_OBJECT, S_OBJECT);
	load_class(b, 2, C_STRING, S_STRING);
	load_class(b, 3, C_CHARS, S_CHARS);
	size_t at = rec_begin(b, TAG_HEAP_DUMP);
	class_plain(b, C_OBJECT, 0, 0);
	{
		static const field string_fields[] = { { S_HASH, T_INT, 0 }, { S_COUNT, T_INT, 0 },
			{ S_OFFSET, T_INT, 0 }, { S_VALUE, T_OBJECT, 0 } };
		cdump c = { .id = C_STRING, .super = C_OBJECT, .isize = 20, .fields = string_fields,
		            .nif = 4 };
		class_dump(b, &c);
	}
	class_plain(b, C_CHARS, C_OBJECT, 0);
	static const struct { uint64_t obj, value; int32_t count, offset; } s[] = {
		{ 0x2000, 0x3000, 5, 0 },  /* "Hello", before the array */
		{ 0x2100, 0x3000, 5, 7 },  /* "World" */
		{ 0x2200, 0x3000, 12, 0 }, /* "Hello, World" */
		{ 0x2300, 0x3100, 3, 0 },  /* array never dumped */
	};
	buf f = { 0 };
	for (unsigned i = 0; i < 4; i++) {
		f.n = 0;
		u4(&f, 0);
		u4(&f, (uint32_t)s[i].count);
		u4(&f, (uint32_t)s[i].offset);
		id(&f, s[i].value);
		instance_dump(b, s[i].obj, C_STRING, &f);
		if (i == 0) {
			static const uint16_t hw[] = { 'H', 'e', 'l', 'l', 'o', ',', ' ', 'W', 'o', 'r', 'l', 'd' };
			char_array(b, 0x3000, hw, 12);
		}
	}
	free(f.p);
	rec_end(b, at);
}

/* The char[] of string_churn.h's contents number k, at id. */
static void churn_array(buf *b, uint64_t id, unsigned k)
{
	uint16_t units[40];
	for (unsigned j = 0; j < churn_len(k); j++)
		units[j] = churn_char(k, j);
	char_array(b, id, units, churn_len(k));
}

/* string-churn: 3000 char[] of 1 to 40 chars, each followed by a String
 * whose array is up to 119 arrays back (every fifth: the next array), so a
 * small string cache wraps over and over.  Array k is at 0x100000 + 16 k,
 * its String at 0x900000 + 16 k; the contents are in string_churn.h. */
static void scen_string_churn(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT);
	class_plain(b, SM_OBJECT, 0, 0);
	string_classes(b);
	for (unsigned k = 0; k < CHURN_N; k++) {
		churn_array(b, 0x100000 + 16 * (uint64_t)k, k);
		string(b, 0x900000 + 16 * (uint64_t)k, 0x100000 + 16 * (uint64_t)churn_ref(k));
	}
	end_segments(b, at);
}

/* string-guess: arrays in two ascending runs, the second below the first,
 * so that the reader's guess "a String whose array id is below the last
 * array read comes after its array" is wrong for 50 Strings.  Run A: 50
 * char[] at 0x500000 + 16 a (contents of string_churn.h's array a); 50
 * Strings 0x700000 + 16 s of run B's array s, still to come; run B: 50
 * char[] at 0x100000 + 16 b (contents of array 100 + b); 50 Strings
 * 0x700000 + 16 (50 + s) of run A's array s, already read. */
static void scen_string_guess(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT);
	class_plain(b, SM_OBJECT, 0, 0);
	string_classes(b);
	for (unsigned run = 0; run < 2; run++) {
		for (unsigned k = 0; k < 50; k++)
			churn_array(b, (run ? 0x100000 : 0x500000) + 16 * (uint64_t)k, run ? 100 + k : k);
		for (unsigned k = 0; k < 50; k++)
			string(b, 0x700000 + 16 * (uint64_t)(50 * run + k),
			       (run ? 0x500000 : 0x100000) + 16 * (uint64_t)k);
	}
	end_segments(b, at);
}

/* two-dumps-late: two 1.0.1 HEAP DUMPs, each of char[]s and then Strings
 * of the first 50 of them, so that with a small string cache every String
 * is late.  Dump 0: 50 char[] at 0x100000 + 16 k (string_churn.h's contents
 * k), Strings 0x700000 + 16 k; dump 1: 400 char[] at 0x200000 + 16 k
 * (contents 1000 + k), Strings 0x800000 + 16 k of the first 50. */
static void scen_two_dumps_late(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.1", TAG_HEAP_DUMP);
	for (unsigned d = 0; d < 2; d++) {
		if (d)
			at = rec_begin(b, TAG_HEAP_DUMP);
		class_plain(b, SM_OBJECT, 0, 0);
		string_classes(b);
		for (unsigned k = 0; k < (d ? 400u : 50u); k++)
			churn_array(b, (d ? 0x200000 : 0x100000) + 16 * (uint64_t)k, 1000 * d + k);
		for (unsigned k = 0; k < 50; k++)
			string(b, (d ? 0x800000 : 0x700000) + 16 * (uint64_t)k,
			       (d ? 0x200000 : 0x100000) + 16 * (uint64_t)k);
		rec_end(b, at);
	}
}

/* many-arrays: three 1.0.1 HEAP DUMPs (string_churn.h, MANY_*), each of
 * 6000 char[] at 0x100000 + 16 k and then 600 Strings 0x900000 + 16 s of
 * arrays all over the dump (String 7 of 0x100008, which no array has): more
 * text arrays than the reader's index keeps in memory, so that with a small
 * string cache Strings find theirs in the index's file. */
static void scen_many_arrays(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.1", TAG_HEAP_DUMP);
	for (unsigned d = 0; d < MANY_DUMPS; d++) {
		if (d)
			at = rec_begin(b, TAG_HEAP_DUMP);
		class_plain(b, SM_OBJECT, 0, 0);
		string_classes(b);
		for (unsigned k = 0; k < MANY_N; k++)
			churn_array(b, 0x100000 + 16 * (uint64_t)k, k + 1000 * d);
		for (unsigned s = 0; s < MANY_STRINGS; s++)
			string(b, 0x900000 + 16 * (uint64_t)s,
			       s == 7 ? 0x100008 : 0x100000 + 16 * (uint64_t)many_ref(d, s));
		rec_end(b, at);
	}
}

/* late-across-dumps (string_churn.h, ACROSS_*): dump 0 of Strings
 * 0x700000 + 16 k of char[] 0x100000, which it does not hold; then dumps
 * 1 to ACROSS_DUMPS, each of char[] 0x100000 (churn char[] d) and after it
 * String 0x800000 + 16 d of it.  Dump 0's Strings wait for a pass, where
 * every later dump's array comes by: a reader that looked at all of them at
 * each array took the square of the file's size (a crafted file of 2.6 MB,
 * 13.5 s). */
static void scen_late_across_dumps(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.1", TAG_HEAP_DUMP);
	for (unsigned d = 0; d <= ACROSS_DUMPS; d++) {
		if (d)
			at = rec_begin(b, TAG_HEAP_DUMP);
		class_plain(b, SM_OBJECT, 0, 0);
		string_classes(b);
		if (!d) {
			for (unsigned k = 0; k < ACROSS_WAITING; k++)
				string(b, 0x700000 + 16 * (uint64_t)k, 0x100000);
		} else {
			churn_array(b, 0x100000, d);
			string(b, 0x800000 + 16 * (uint64_t)d, 0x100000);
		}
		rec_end(b, at);
	}
}

/* late-big: char[]s of 0 to 300,000 units, each before its String (with a
 * small string cache every one is late: read again by the pass after the
 * dump, at its offset, most of them past its 4 KiB read window).  Unit k of
 * array i: U+263A at every thousandth, else 'a' + (i + k) % 26. */
static const uint32_t late_big_len[] = { 0, 1, 100, 2035, 2049, 5000, 40000, 300000 };

static void scen_late_big(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT);
	class_plain(b, SM_OBJECT, 0, 0);
	string_classes(b);
	for (unsigned i = 0; i < sizeof late_big_len / sizeof *late_big_len; i++) {
		uint32_t n = late_big_len[i];
		uint16_t *u = malloc((n ? n : 1) * sizeof *u);
		if (!u)
			abort();
		for (uint32_t k = 0; k < n; k++)
			u[k] = k % 1000 == 999 ? 0x263A : (uint16_t)('a' + (i + k) % 26);
		char_array(b, 0x300000 + 16 * (uint64_t)i, u, n);
		free(u);
		string(b, 0x800000 + 16 * (uint64_t)i, 0x300000 + 16 * (uint64_t)i);
	}
	end_segments(b, at);
}

/* superclass-cycle: class A (0x100) super B (0x200) super A, and C (0x300)
 * its own superclass; instances of A before and after the class dumps, one
 * of C.  Must end (with warnings), not hang. */
static void scen_superclass_cycle(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 4, 1300000000000ULL);
	enum { S_A = 1, S_B, S_C, S_X, S_Y };
	utf8(b, S_A, "com/example/A");
	utf8(b, S_B, "com/example/B");
	utf8(b, S_C, "com/example/C");
	utf8(b, S_X, "x");
	utf8(b, S_Y, "y");
	load_class(b, 1, 0x100, S_A);
	load_class(b, 2, 0x200, S_B);
	load_class(b, 3, 0x300, S_C);
	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	buf f = { 0 };
	u4(&f, 1);
	id(&f, 0x1100);
	instance_dump(b, 0x1000, 0x100, &f);
	static const field a_fields[] = { { S_X, T_INT, 0 } };
	static const field b_fields[] = { { S_Y, T_OBJECT, 0 } };
	cdump ca = { .id = 0x100, .super = 0x200, .isize = 8, .fields = a_fields, .nif = 1 };
	cdump cb = { .id = 0x200, .super = 0x100, .isize = 8, .fields = b_fields, .nif = 1 };
	cdump cc = { .id = 0x300, .super = 0x300, .isize = 4, .fields = a_fields, .nif = 1 };
	class_dump(b, &ca);
	class_dump(b, &cb);
	class_dump(b, &cc);
	instance_dump(b, 0x1100, 0x100, &f);
	f.n = 0;
	u4(&f, 3);
	instance_dump(b, 0x1200, 0x300, &f);
	free(f.p);
	end_segments(b, at);
}

/* all-records: every top-level record kind, every GC-root kind (HotSpot's
 * and Android's), a class with signers, protection domain and constant
 * pool, then a HEAP DUMP (dump 0) and a HEAP DUMP SEGMENT series (dump 1). */
static void scen_all_records(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 4, 1100000000000ULL);
	{
		size_t at = rec_begin(b, TAG_CONTROL_SETTINGS);
		u4(b, 3);
		u2(b, 4);
		rec_end(b, at);
	}
	enum { S_OBJECT = 1, S_THREAD, S_GONE, S_MAIN, S_SYSTEM, S_SLEEP, S_SLEEPSIG, S_RUN,
	       S_RUNSIG, S_THREADJAVA, S_PRIORITY, S_NAME, S_CONSTANT };
	static const char *const names[] = { "java/lang/Object", "java/lang/Thread",
		"com/example/Gone", "main", "system", "sleep", "(J)V", "run", "()V", "Thread.java",
		"priority", "name", "CONSTANT" };
	UTF8_ALL(b, S_OBJECT, names);
	load_class(b, 1, 0x100, S_OBJECT);
	load_class(b, 2, 0x200, S_THREAD);
	load_class(b, 3, 0x300, S_GONE);
	{
		size_t at = rec_begin(b, TAG_UNLOAD_CLASS);
		u4(b, 3);
		rec_end(b, at);
	}
	static const struct { uint64_t id, method, sig; int32_t line; } frames[] = {
		{ 1, S_SLEEP, S_SLEEPSIG, -3 }, { 2, S_RUN, S_RUNSIG, 42 }
	};
	for (unsigned i = 0; i < 2; i++)
		frame(b, frames[i].id, frames[i].method, frames[i].sig, S_THREADJAVA, 2, frames[i].line);
	{
		static const uint64_t fr[] = { 1, 2 };
		trace(b, 1, 1, 2, fr);
		trace(b, 2, 0, 0, NULL);
	}
	start_thread(b, 1, 0x400, 1, S_MAIN, S_MAIN, S_SYSTEM);
	{
		size_t at = rec_begin(b, TAG_ALLOC_SITES);
		u2(b, 0x3);
		u4(b, 0x3C23D70A); /* 0.01f */
		u4(b, 1000);
		u4(b, 10);
		u8(b, 123456789012ULL);
		u8(b, 98765);
		u4(b, 2);
		static const uint32_t site[2][7] = {
			{ 0, 2, 1, 100, 1, 200, 2 }, { T_INT, 0, 1, 400, 4, 800, 8 }
		};
		for (unsigned i = 0; i < 2; i++) {
			u1(b, site[i][0]);
			for (unsigned k = 1; k < 7; k++)
				u4(b, site[i][k]);
		}
		rec_end(b, at);
	}
	{
		size_t at = rec_begin(b, TAG_HEAP_SUMMARY);
		u4(b, 1000);
		u4(b, 10);
		u8(b, 5000000000ULL);
		u8(b, 77);
		rec_end(b, at);
	}
	{
		size_t at = rec_begin(b, TAG_CPU_SAMPLES);
		u4(b, 15);
		u4(b, 2);
		u4(b, 10);
		u4(b, 1);
		u4(b, 5);
		u4(b, 2);
		rec_end(b, at);
	}

	size_t at = rec_begin(b, TAG_HEAP_DUMP);
	class_plain(b, 0x100, 0, 0);
	{
		static const field cpool[] = { { 7, T_OBJECT, 0x400 }, { 9, T_INT, 1234 } };
		static const field statics[] = { { S_CONSTANT, T_DOUBLE, 0x400921FB54442D18ULL } };
		static const field fields[] = { { S_NAME, T_OBJECT, 0 }, { S_PRIORITY, T_INT, 0 } };
		cdump c = { .id = 0x200, .super = 0x100, .loader = 0x500, .signers = 0x600,
		            .domain = 0x700, .isize = 8, .cpool = cpool, .ncp = 2, .statics = statics,
		            .nst = 1, .fields = fields, .nif = 2 };
		class_dump(b, &c);
	}
	{
		buf f = { 0 };
		id(&f, 0);
		u4(&f, 5);
		instance_dump(b, 0x400, 0x200, &f);
		free(f.p);
	}
	/* Every root kind; object = 0x1000 + sub-tag. */
	root_simple(b, ROOT_UNKNOWN, 0x10FF);
	u1(b, ROOT_JNI_GLOBAL);
	id(b, 0x1001);
	id(b, 0xABC);
	root_thread_frame(b, ROOT_JNI_LOCAL, 0x1002, 1, 0);
	root_thread_frame(b, ROOT_JAVA_FRAME, 0x1003, 1, 1);
	u1(b, ROOT_NATIVE_STACK);
	id(b, 0x1004);
	u4(b, 1);
	root_simple(b, ROOT_STICKY_CLASS, 0x1005);
	u1(b, ROOT_THREAD_BLOCK);
	id(b, 0x1006);
	u4(b, 1);
	root_simple(b, ROOT_MONITOR_USED, 0x1007);
	root_thread_frame(b, ROOT_THREAD_OBJECT, 0x1008, 1, 1); /* thread serial, trace serial */
	root_simple(b, ROOT_INTERNED_STRING, 0x1089);
	root_simple(b, ROOT_FINALIZING, 0x108A);
	root_simple(b, ROOT_DEBUGGER, 0x108B);
	root_simple(b, ROOT_REFERENCE_CLEANUP, 0x108C);
	root_simple(b, ROOT_VM_INTERNAL, 0x108D);
	root_thread_frame(b, ROOT_JNI_MONITOR, 0x108E, 1, 0xFFFFFFFF);
	root_simple(b, ROOT_UNREACHABLE, 0x1090);
	rec_end(b, at);
	end_thread(b, 1);
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	class_plain(b, 0x100, 0, 0);
	root_simple(b, ROOT_STICKY_CLASS, 0x100);
	end_segments(b, at);
}

/* class-order: HotSpot's order of CLASS DUMPs (JDK 17: java/lang/Class
 * and java/lang/Object come after most classes), 8-byte ids with
 * compressed oops.  java/lang/Class has fields name, classLoader (refs, 4
 * bytes each) and classRedefinedCount (int): its instances are
 * align8(12 + 12) = 24 bytes, so a class object is align8(24 + its static
 * bytes) whichever class dump comes first. */
static void scen_class_order(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 8, 1700000000000ULL);
	enum { S_OBJECT = 1, S_CLASS, S_CONFIG, S_INSTANCE, S_LIMIT, S_FLAG, S_NAME, S_LOADER,
	       S_COUNT, S_LATE };
	static const char *const names[] = { "java/lang/Object", "java/lang/Class",
		"com/example/Config", "INSTANCE", "LIMIT", "FLAG", "name", "classLoader",
		"classRedefinedCount", "com/example/Late" };
	UTF8_ALL(b, S_OBJECT, names);
	enum { C_OBJECT = 0x7000, C_CLASS = 0x7100, C_CONFIG = 0x7200, C_LATE = 0x7300 };
	load_class(b, 1, C_OBJECT, S_OBJECT);
	load_class(b, 2, C_CLASS, S_CLASS);
	load_class(b, 3, C_CONFIG, S_CONFIG);
	load_class(b, 4, C_LATE, S_LATE);
	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	{
		/* statics: 4 (ref) + 8 + 1 = 13 bytes */
		field statics[] = { { S_INSTANCE, T_OBJECT, 0x9000 }, { S_LIMIT, T_LONG, 1000 },
		                    { S_FLAG, T_BOOLEAN, 1 } };
		cdump c = { .id = C_CONFIG, .super = C_OBJECT, .isize = 0, .statics = statics, .nst = 3 };
		class_dump(b, &c);
	}
	{
		static const field fields[] = { { S_NAME, T_OBJECT, 0 }, { S_LOADER, T_OBJECT, 0 },
		                                { S_COUNT, T_INT, 0 } };
		cdump c = { .id = C_CLASS, .super = C_OBJECT, .isize = 20, .fields = fields, .nif = 3 };
		class_dump(b, &c);
	}
	class_plain(b, C_OBJECT, 0, 0);
	rec_end(b, at);
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	class_plain(b, C_LATE, C_OBJECT, 0); /* after every other class */
	buf f = { 0 };
	instance_dump(b, 0x9000, C_CONFIG, &f);
	end_segments(b, at);
}

/* length-zero: a 1.0.1 HEAP DUMP whose length was never patched (0, the
 * placeholder HotSpot writes first) followed by its sub-records up to the
 * end of the file. */
static void scen_length_zero(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.1", TAG_HEAP_DUMP);
	small_pair(b);
	static const int32_t v[] = { 1, 2, 3 };
	int_array(b, 0x2000, v, 3);
	root_simple(b, ROOT_STICKY_CLASS, SM_ITEM);
	(void)at; /* the length stays 0 */
}

/* Gives the first record after the header a time of 1 microsecond, as the
 * JVMTI agent writes them (HotSpot and ART write 0, which the reader uses
 * to tell a root from a record after a length-0 segment): the scenarios
 * that test its other rules. */
static void time_first_record(buf *b)
{
	size_t at = strlen((const char *)b->p) + 1 + 12;
	b->p[at + 4] = 1;
}

/* length-zero-roots: a complete HEAP DUMP SEGMENT, then one whose length
 * was never patched and whose first sub-records are roots with tags that
 * are top-level tags too (ROOT STICKY CLASS 0x05 is TRACE's, MONITOR USED
 * 0x07 HEAP SUMMARY's, JNI GLOBAL 0x01 UTF8's), as in a JDK 8 dump cut
 * short, whose roots come after the objects.  The file ends there.  Its
 * first record is timed (time_first_record).
 * length-zero-roots-fit: the same roots after a ROOT JNI LOCAL of thread
 * serial 16, which reads as a LOAD CLASS (0x02) of 16 bytes, the length of
 * one with 4-byte ids, that the file holds: the byte after it, inside the
 * JNI GLOBAL's object id, is 0, no record's tag.
 * length-zero-roots-short: the same with thread serial 4, a LOAD CLASS of 4
 * bytes followed by a tag (the STICKY CLASS root's), but LOAD CLASS has 16. */
static void length_zero_roots(buf *b, uint32_t lead)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT);
	small_pair(b);
	rec_end(b, at);
	time_first_record(b);
	(void)rec_begin(b, TAG_HEAP_DUMP_SEGMENT); /* the length stays 0 */
	if (lead)
		root_thread_frame(b, ROOT_JNI_LOCAL, 0x1000, lead, 0);
	root_simple(b, ROOT_STICKY_CLASS, SM_ITEM);
	root_simple(b, ROOT_MONITOR_USED, 0x1000);
	u1(b, ROOT_JNI_GLOBAL);
	id(b, 0x1010);
	id(b, 0x9999);
}

static void scen_length_zero_roots(buf *b) { length_zero_roots(b, 0); }
static void scen_length_zero_roots_fit(buf *b) { length_zero_roots(b, 16); }
static void scen_length_zero_roots_short(buf *b) { length_zero_roots(b, 4); }

/* length-zero-empty: empty HEAP DUMP SEGMENTs of length 0, each followed by
 * a top-level record whose tag is a root's too (a UTF8 "hello", a LOAD
 * CLASS, a TRACE without frames, a HEAP SUMMARY), then a segment with the
 * objects.  Each record is read as one. */
static void scen_length_zero_empty(buf *b)
{
	(void)small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT); /* length 0, empty */
	utf8(b, 0x7000, "hello");
	(void)rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	load_class(b, 9, 0x9000, 0x7000);
	(void)rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	trace(b, 7, 1, 0, NULL);
	(void)rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	size_t at = rec_begin(b, TAG_HEAP_SUMMARY);
	u4(b, 100);
	u4(b, 2);
	u8(b, 300);
	u8(b, 4);
	rec_end(b, at);
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	small_pair(b);
	end_segments(b, at);
}

/* length-zero-frames: the unpatched segment starts with ROOT JAVA FRAMEs of
 * thread serial 4, 13 bytes each with 4-byte ids: each is exactly an
 * UNLOAD CLASS record of 4 bytes followed by a tag (the next root's).  But
 * every record so far had time 0, and a root's would-be time is its object
 * id. */
static void scen_length_zero_frames(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT);
	small_pair(b);
	rec_end(b, at);
	(void)rec_begin(b, TAG_HEAP_DUMP_SEGMENT); /* the length stays 0 */
	for (unsigned i = 0; i < 4; i++)
		root_thread_frame(b, ROOT_JAVA_FRAME, 0x1000, 4, i);
}

/* length-zero-globals: the unpatched segment starts with nine ROOT JNI
 * GLOBALs of global ref 18: each reads as a UTF8 of 18 bytes, the next two
 * roots, followed by a tag (the fourth root's), but its text holds the ids'
 * NULs, which modified UTF-8 never has. */
static void scen_length_zero_globals(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT);
	small_pair(b);
	rec_end(b, at);
	time_first_record(b);
	(void)rec_begin(b, TAG_HEAP_DUMP_SEGMENT); /* the length stays 0 */
	for (unsigned i = 0; i < 9; i++) {
		u1(b, ROOT_JNI_GLOBAL);
		id(b, 0x1000);
		id(b, 18);
	}
}

/* length-zero-end: a HEAP DUMP SEGMENT whose length was never patched,
 * then HEAP DUMP END and a second dump of one segment. */
static void scen_length_zero_end(buf *b)
{
	(void)small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT); /* length 0 */
	small_pair(b);
	rec_end(b, rec_begin(b, TAG_HEAP_DUMP_END));
	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	small_classes(b);
	item(b, 0x1000, 0, 3);
	end_segments(b, at);
}

/* nodata-string: Strings whose char[] is an Android NODATA array (0xC3: a
 * count, no elements), the array before one String and after another (a
 * million elements declared, none there), an int[] right after it, and a
 * String with a real char[]. */
static void nodata_array(buf *b, uint64_t obj, unsigned type, uint32_t count)
{
	u1(b, SUB_PRIMITIVE_ARRAY_NODATA);
	id(b, obj);
	u4(b, 1);
	u4(b, count);
	u1(b, type);
}

static void scen_nodata_string(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.3", TAG_HEAP_DUMP_SEGMENT);
	small_classes(b);
	string_classes(b);
	nodata_array(b, 0x3000, T_CHAR, 5);
	string(b, 0x2000, 0x3000);
	string(b, 0x2010, 0x3010);
	nodata_array(b, 0x3010, T_CHAR, 1000000);
	static const int32_t v[] = { 0x41424344, 0x45464748, 7 };
	int_array(b, 0x4000, v, 3);
	static const uint16_t hi[] = { 'h', 'i' };
	string(b, 0x2020, 0x3020);
	char_array(b, 0x3020, hi, 2);
	end_segments(b, at);
}

/* wide-class: com/example/Wide declares 3000 int fields f0..f2999 and
 * extends com/example/Base, which declares f5 and g: a chain of 3002 fields
 * in which Wide's f5 hides Base's.  One instance: fi = 3i, Base.f5 777777,
 * g 42. */
enum { WIDE_FIELDS = 3000 };
static void scen_wide_class(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 4, 1300000000000ULL);
	enum { S_OBJECT = 1, S_BASE, S_WIDE, S_G, S_F0 = 100 };
	utf8(b, S_OBJECT, "java/lang/Object");
	utf8(b, S_BASE, "com/example/Base");
	utf8(b, S_WIDE, "com/example/Wide");
	utf8(b, S_G, "g");
	static field fields[WIDE_FIELDS];
	for (unsigned i = 0; i < WIDE_FIELDS; i++) {
		char name[16];
		snprintf(name, sizeof name, "f%u", i);
		utf8(b, S_F0 + i, name);
		fields[i] = (field){ S_F0 + i, T_INT, 0 };
	}
	enum { C_OBJECT = 0x100, C_BASE = 0x200, C_WIDE = 0x300 };
	load_class(b, 1, C_OBJECT, S_OBJECT);
	load_class(b, 2, C_BASE, S_BASE);
	load_class(b, 3, C_WIDE, S_WIDE);
	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	class_plain(b, C_OBJECT, 0, 0);
	{
		static const field base[] = { { S_F0 + 5, T_INT, 0 }, { S_G, T_INT, 0 } };
		cdump c = { .id = C_BASE, .super = C_OBJECT, .isize = 8, .fields = base, .nif = 2 };
		class_dump(b, &c);
	}
	cdump c = { .id = C_WIDE, .super = C_BASE, .isize = 4 * WIDE_FIELDS + 8, .fields = fields,
	            .nif = WIDE_FIELDS };
	class_dump(b, &c);
	buf f = { 0 };
	for (unsigned i = 0; i < WIDE_FIELDS; i++)
		u4(&f, 3 * i);
	u4(&f, 777777);
	u4(&f, 42);
	instance_dump(b, 0x1000, C_WIDE, &f);
	free(f.p);
	end_segments(b, at);
}

/* wrapped-length: a 1.0.1 HEAP DUMP of more than 4 GiB whose u4 length is
 * its real length modulo 2^32, as HotSpot <= 8 writes it: classes, a byte[]
 * of 0xFFFFFFF0 zero elements (a hole of the sparse file), then an Item,
 * a char[] "beyond" (0x3100), a String (0x2000) of it and a root, so that
 * they lie beyond offset 2^32 (the String, after its array, is found late
 * when the cache of recent arrays is small: its array is read again at an
 * offset past 2^32). */
enum { WL_COUNT = 0xFFFFFFF0u };
static void scen_wrapped_length(buf *b)
{
	static const uint16_t beyond[] = { 'b', 'e', 'y', 'o', 'n', 'd' };
	size_t at = small_start(b, "JAVA PROFILE 1.0.1", TAG_HEAP_DUMP);
	small_classes(b);
	string_classes(b);
	u1(b, SUB_PRIMITIVE_ARRAY_DUMP);
	id(b, 0x3000);
	u4(b, 1);
	u4(b, WL_COUNT);
	u1(b, T_BYTE);
	hole_at = b->n;
	hole_len = WL_COUNT;
	item(b, 0x1000, 0x3000, 7);
	char_array(b, 0x3100, beyond, 6);
	string(b, 0x2000, 0x3100);
	root_simple(b, ROOT_STICKY_CLASS, SM_ITEM);
	patch4(b, at, (uint32_t)(b->n - at - 4 + hole_len));
}

/* wrapped-length-boundary: as wrapped-length, but the sub-records after the
 * classes make exactly 4 GiB, so that the declared length ends between two
 * sub-records (the byte[] starts there), and an END THREAD follows the
 * dump: the length cannot be told from the file's size. */
static void wrapped_length_at(buf *b, unsigned after_tag)
{
	static const uint16_t beyond[] = { 'b', 'e', 'y', 'o', 'n', 'd' };
	size_t at = small_start(b, "JAVA PROFILE 1.0.1", TAG_HEAP_DUMP);
	small_classes(b);
	string_classes(b);
	buf tail = { 0 };
	item(&tail, 0x1000, 0x3000, 7);
	char_array(&tail, 0x3100, beyond, 6);
	string(&tail, 0x2000, 0x3100);
	root_simple(&tail, ROOT_STICKY_CLASS, SM_ITEM);
	uint64_t count = ((uint64_t)1 << 32) - (1 + 4 + 4 + 4 + 1) - tail.n + after_tag;
	u1(b, SUB_PRIMITIVE_ARRAY_DUMP);
	id(b, 0x3000);
	u4(b, 1);
	u4(b, (uint32_t)count);
	u1(b, T_BYTE);
	hole_at = b->n;
	hole_len = count;
	for (size_t i = 0; i < tail.n; i++)
		u1(b, tail.p[i]);
	free(tail.p);
	patch4(b, at, (uint32_t)(b->n - at - 4 + hole_len));
	end_thread(b, 1);
}

static void scen_wrapped_length_boundary(buf *b) { wrapped_length_at(b, 0); }

/* wrapped-length-tag: the same with one element more, so that the declared
 * end falls one byte into the byte[], after its tag. */
static void scen_wrapped_length_tag(buf *b) { wrapped_length_at(b, 1); }

/* The start of a scenario of two classes com/example/B extends
 * com/example/A: the header, the UTF8 records of the class names and
 * three field names (string ids AB_OBJECT .. AB_F3), LOAD CLASS of
 * java.lang.Object, A and B (AB_C_OBJECT, AB_C_A, AB_C_B), and a HEAP DUMP
 * SEGMENT opened with java.lang.Object's CLASS DUMP.  Returns the segment's
 * start, for end_segments. */
enum { AB_OBJECT = 1, AB_A, AB_B, AB_F1, AB_F2, AB_F3 };
enum { AB_C_OBJECT = 0x100, AB_C_A = 0x200, AB_C_B = 0x300 };

static size_t ab_start(buf *b, const char *f1, const char *f2, const char *f3)
{
	header(b, "JAVA PROFILE 1.0.2", 4, 1300000000000ULL);
	const char *const names[] = { "java/lang/Object", "com/example/A", "com/example/B", f1, f2, f3 };
	UTF8_ALL(b, AB_OBJECT, names);
	load_class(b, 1, AB_C_OBJECT, AB_OBJECT);
	load_class(b, 2, AB_C_A, AB_A);
	load_class(b, 3, AB_C_B, AB_B);
	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	class_plain(b, AB_C_OBJECT, 0, 0);
	return at;
}

/* shadowed-field: com/example/B declares x (int) and link (object), and
 * extends com/example/A, which declares x, y (int) and link too.  An
 * instance of B: B.x 1, B.link 0x2000, A.x 2, A.y 3, A.link 0x2100. */
static void scen_shadowed_field(buf *b)
{
	size_t at = ab_start(b, "x", "y", "link");
	enum { S_X = AB_F1, S_Y, S_LINK };
	enum { C_OBJECT = AB_C_OBJECT, C_A = AB_C_A, C_B = AB_C_B };
	{
		static const field fields[] = { { S_X, T_INT, 0 }, { S_Y, T_INT, 0 }, { S_LINK, T_OBJECT, 0 } };
		cdump c = { .id = C_A, .super = C_OBJECT, .isize = 12, .fields = fields, .nif = 3 };
		class_dump(b, &c);
	}
	{
		static const field fields[] = { { S_X, T_INT, 0 }, { S_LINK, T_OBJECT, 0 } };
		cdump c = { .id = C_B, .super = C_A, .isize = 20, .fields = fields, .nif = 2 };
		class_dump(b, &c);
	}
	buf f = { 0 };
	u4(&f, 1);
	id(&f, 0x2000);
	u4(&f, 2);
	u4(&f, 3);
	id(&f, 0x2100);
	instance_dump(b, 0x1000, C_B, &f);
	free(f.p);
	end_segments(b, at);
}

/* class-redumped: B extends A; an instance of B; A dumped again with a
 * field more (a class dumped twice, which no known writer does; a later
 * dump's classes are dumped again too); an instance of B with it. */
static void scen_class_redumped(buf *b)
{
	size_t at = ab_start(b, "x", "y", "z");
	enum { S_X = AB_F1, S_Y, S_Z };
	enum { C_OBJECT = AB_C_OBJECT, C_A = AB_C_A, C_B = AB_C_B };
	static const field a1[] = { { S_X, T_INT, 0 } }, a2[] = { { S_X, T_INT, 0 }, { S_Z, T_INT, 0 } };
	static const field bf[] = { { S_Y, T_INT, 0 } };
	cdump ca1 = { .id = C_A, .super = C_OBJECT, .isize = 4, .fields = a1, .nif = 1 };
	cdump cb = { .id = C_B, .super = C_A, .isize = 8, .fields = bf, .nif = 1 };
	class_dump(b, &ca1);
	class_dump(b, &cb);
	buf f = { 0 };
	u4(&f, 2); /* B.y, then A's fields */
	u4(&f, 1);
	instance_dump(b, 0x1000, C_B, &f);
	cdump ca2 = { .id = C_A, .super = C_OBJECT, .isize = 8, .fields = a2, .nif = 2 };
	class_dump(b, &ca2);
	f.n = 0;
	u4(&f, 5);
	u4(&f, 3);
	u4(&f, 4);
	instance_dump(b, 0x1010, C_B, &f);
	free(f.p);
	end_segments(b, at);
}

/* names-late: every LOAD CLASS before the UTF8 record of its name (no
 * known writer does this; the format does not forbid it), JDK 8 Strings. */
static void scen_names_late(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 4, 1300000000000ULL);
	enum { S_OBJECT = 1, S_STRING, S_CHARS, S_INTS, S_HASH, S_VALUE };
	static const char *const names[] = { "java/lang/Object", "java/lang/String", "[C", "[I",
		"hash", "value" };
	enum { C_OBJECT = 0x100, C_STRING = 0x200, C_CHARS = 0x300, C_INTS = 0x400 };
	load_class(b, 1, C_OBJECT, S_OBJECT);
	load_class(b, 2, C_STRING, S_STRING);
	load_class(b, 3, C_CHARS, S_CHARS);
	load_class(b, 4, C_INTS, S_INTS);
	UTF8_ALL(b, S_OBJECT, names);
	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	class_plain(b, C_OBJECT, 0, 0);
	{
		static const field fields[] = { { S_HASH, T_INT, 0 }, { S_VALUE, T_OBJECT, 0 } };
		cdump c = { .id = C_STRING, .super = C_OBJECT, .isize = 8, .fields = fields, .nif = 2 };
		class_dump(b, &c);
	}
	class_plain(b, C_CHARS, C_OBJECT, 0);
	class_plain(b, C_INTS, C_OBJECT, 0);
	buf f = { 0 };
	u4(&f, 0);
	id(&f, 0x2100);
	instance_dump(b, 0x2000, C_STRING, &f);
	free(f.p);
	static const uint16_t late[] = { 'l', 'a', 't', 'e' };
	char_array(b, 0x2100, late, 4);
	static const int32_t v[] = { 9 };
	int_array(b, 0x2200, v, 1);
	end_segments(b, at);
}

/* string-named-late: the LOAD CLASS of java/lang/String comes after its
 * CLASS DUMP and a first String (between two segments); a second String
 * follows it. */
static void scen_string_named_late(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 4, 1300000000000ULL);
	enum { S_OBJECT = 1, S_STRING, S_CHARS, S_VALUE };
	static const char *const names[] = { "java/lang/Object", "java/lang/String", "[C", "value" };
	UTF8_ALL(b, S_OBJECT, names);
	enum { C_OBJECT = 0x100, C_STRING = 0x200, C_CHARS = 0x300 };
	load_class(b, 1, C_OBJECT, S_OBJECT);
	load_class(b, 3, C_CHARS, S_CHARS);
	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	class_plain(b, C_OBJECT, 0, 0);
	static const field fields[] = { { S_VALUE, T_OBJECT, 0 } };
	cdump c = { .id = C_STRING, .super = C_OBJECT, .isize = 4, .fields = fields, .nif = 1 };
	class_dump(b, &c);
	class_plain(b, C_CHARS, C_OBJECT, 0);
	buf f = { 0 };
	id(&f, 0x2100);
	instance_dump(b, 0x2000, C_STRING, &f);
	static const uint16_t first[] = { 'n', 'o' };
	char_array(b, 0x2100, first, 2);
	rec_end(b, at);
	load_class(b, 2, C_STRING, S_STRING);
	at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	f.n = 0;
	id(&f, 0x2110);
	instance_dump(b, 0x2010, C_STRING, &f);
	free(f.p);
	static const uint16_t second[] = { 'o', 'k' };
	char_array(b, 0x2110, second, 2);
	end_segments(b, at);
}

/* class-reused: 1.0.1, two HEAP DUMPs.  Class com/example/A (0x200, field
 * x int) has an instance 0x5000 in dump 0; then an UNLOAD CLASS of A and a
 * LOAD CLASS of com/example/B at the same id, and in dump 1 an instance of
 * B (field y long) before B's CLASS DUMP. */
static void scen_class_reused(buf *b)
{
	header(b, "JAVA PROFILE 1.0.1", 4, 1300000000000ULL);
	enum { S_OBJECT = 1, S_A, S_B, S_X, S_Y };
	static const char *const names[] = { "java/lang/Object", "com/example/A", "com/example/B",
		"x", "y" };
	UTF8_ALL(b, S_OBJECT, names);
	enum { C_OBJECT = 0x100, C_REUSED = 0x200 };
	load_class(b, 1, C_OBJECT, S_OBJECT);
	load_class(b, 2, C_REUSED, S_A);
	size_t at = rec_begin(b, TAG_HEAP_DUMP);
	class_plain(b, C_OBJECT, 0, 0);
	static const field fa[] = { { S_X, T_INT, 0 } };
	cdump a = { .id = C_REUSED, .super = C_OBJECT, .isize = 4, .fields = fa, .nif = 1 };
	class_dump(b, &a);
	buf f = { 0 };
	u4(&f, 1);
	instance_dump(b, 0x5000, C_REUSED, &f);
	rec_end(b, at);
	at = rec_begin(b, TAG_UNLOAD_CLASS);
	u4(b, 2);
	rec_end(b, at);
	load_class(b, 3, C_REUSED, S_B);
	at = rec_begin(b, TAG_HEAP_DUMP);
	f.n = 0;
	u8(&f, 2);
	instance_dump(b, 0x5000, C_REUSED, &f);
	free(f.p);
	static const field fb[] = { { S_Y, T_LONG, 0 } };
	cdump c = { .id = C_REUSED, .super = C_OBJECT, .isize = 8, .fields = fb, .nif = 1 };
	class_dump(b, &c);
	class_plain(b, C_OBJECT, 0, 0);
	rec_end(b, at);
}

/* android-converted: what hprof-conv makes of an Android dump: a 1.0.2
 * header, no Android sub-records, ART's class names and instance sizes:
 * java.lang.Object (shadow$_klass_, shadow$_monitor_; instance size 8),
 * com.example.Thing (int n; instance size 12), byte[]. */
static void scen_android_converted(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 4, 1500000000000ULL);
	enum { S_OBJECT = 1, S_THING, S_BYTES, S_KLASS, S_MONITOR, S_N };
	static const char *const names[] = { "java.lang.Object", "com.example.Thing", "byte[]",
		"shadow$_klass_", "shadow$_monitor_", "n" };
	UTF8_ALL(b, S_OBJECT, names);
	enum { C_OBJECT = 0x6F000000, C_THING = 0x70001000, C_BYTES = 0x6F000400 };
	load_class(b, 1, C_OBJECT, S_OBJECT);
	load_class(b, 2, C_THING, S_THING);
	load_class(b, 3, C_BYTES, S_BYTES);
	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	static const field object_fields[] = { { S_KLASS, T_OBJECT, 0 }, { S_MONITOR, T_INT, 0 } };
	cdump o = { .id = C_OBJECT, .isize = 8, .fields = object_fields, .nif = 2 };
	class_dump(b, &o);
	static const field thing_fields[] = { { S_N, T_INT, 0 } };
	cdump t = { .id = C_THING, .super = C_OBJECT, .isize = 12, .fields = thing_fields, .nif = 1 };
	class_dump(b, &t);
	class_plain(b, C_BYTES, C_OBJECT, 0);
	buf f = { 0 };
	u4(&f, 7);
	u4(&f, C_THING);
	u4(&f, 0);
	instance_dump(b, 0x12C00000, C_THING, &f);
	free(f.p);
	byte_array(b, 0x12C00100, "abc", 3);
	root_simple(b, ROOT_UNKNOWN, 0x12C00000);
	end_segments(b, at);
}

/* hprof-agent: a dump of the JVMTI hprof agent: 1.0.2, 4-byte ids (the
 * agent's own object numbers), dotted class names like ART's, but CONTROL
 * SETTINGS first, HotSpot's instance sizes (the fields' bytes: 0 for
 * java.lang.Object) and no shadow$_ fields. */
static void scen_hprof_agent(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 4, 1505478840497ULL);
	size_t cs = rec_begin(b, TAG_CONTROL_SETTINGS);
	u4(b, 1);
	u2(b, 4);
	rec_end(b, cs);
	enum { S_OBJECT = 1, S_INTEGER, S_CHARS, S_VALUE };
	static const char *const names[] = { "java.lang.Object", "java.lang.Integer", "char[]", "value" };
	UTF8_ALL(b, S_OBJECT, names);
	enum { C_OBJECT = 0x100, C_INTEGER = 0x200, C_CHARS = 0x300 };
	load_class(b, 1, C_OBJECT, S_OBJECT);
	load_class(b, 2, C_INTEGER, S_INTEGER);
	load_class(b, 3, C_CHARS, S_CHARS);
	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	class_plain(b, C_OBJECT, 0, 0);
	static const field integer_fields[] = { { S_VALUE, T_INT, 0 } };
	cdump i = { .id = C_INTEGER, .super = C_OBJECT, .isize = 4, .fields = integer_fields, .nif = 1 };
	class_dump(b, &i);
	class_plain(b, C_CHARS, C_OBJECT, 0);
	buf f = { 0 };
	instance_dump(b, 0x1000, C_OBJECT, &f);
	u4(&f, 42);
	instance_dump(b, 0x1001, C_INTEGER, &f);
	free(f.p);
	static const uint16_t hi[] = { 'h', 'i', '!' };
	char_array(b, 0x1002, hi, 3);
	root_simple(b, ROOT_UNKNOWN, 0x1000);
	end_segments(b, at);
}

/* agent-cpu-samples: what -agentlib:hprof=cpu=samples,format=b writes (a
 * profile, no heap dump): CONTROL SETTINGS, names, a class, a thread, its
 * frames and traces, the CPU SAMPLES taken at exit, END THREAD.  Trace 1
 * (Worker.run -> Thread.sleep) 9 samples, trace 2 (Worker.run) 3. */
static void scen_agent_cpu_samples(buf *b)
{
	header(b, "JAVA PROFILE 1.0.1", 4, 1262304000123ULL);
	size_t at = rec_begin(b, TAG_CONTROL_SETTINGS);
	u4(b, 2); /* CPU sampling */
	u2(b, 4);
	rec_end(b, at);
	enum { S_WORKER = 1, S_MAIN, S_SYSTEM, S_RUN, S_RUNSIG, S_WORKERJAVA, S_SLEEP, S_SLEEPSIG,
	       S_THREADJAVA, S_THREAD };
	static const char *const names[] = { "Worker", "main", "system", "run", "()V", "Worker.java",
		"sleep", "(J)V", "Thread.java", "java.lang.Thread" };
	UTF8_ALL(b, S_WORKER, names);
	load_class(b, 1, 0x100, S_WORKER);
	load_class(b, 2, 0x200, S_THREAD);
	start_thread(b, 1, 0x400, 1, S_MAIN, S_MAIN, S_SYSTEM);
	frame(b, 1, S_SLEEP, S_SLEEPSIG, S_THREADJAVA, 2, -3);
	frame(b, 2, S_RUN, S_RUNSIG, S_WORKERJAVA, 1, 17);
	static const uint64_t sleeping[] = { 1, 2 }, running[] = { 2 };
	trace(b, 1, 1, 2, sleeping);
	trace(b, 2, 1, 1, running);
	at = rec_begin(b, TAG_CPU_SAMPLES);
	u4(b, 12);
	u4(b, 2);
	u4(b, 9);
	u4(b, 1);
	u4(b, 3);
	u4(b, 2);
	rec_end(b, at);
	end_thread(b, 1);
}

/* no-heap-dump: the records a HotSpot dump starts with (names, classes,
 * a frame, a trace), then the end of the file: a dump cut before its heap
 * dump, which the reader refuses (no profile results either). */
static void scen_no_heap_dump(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 8, 1700000000000ULL);
	static const char *const names[] = { "java/lang/Object", "main", "()V", "Main.java" };
	UTF8_ALL(b, 1, names);
	load_class(b, 1, 0x100, 1);
	frame(b, 1, 2, 3, 4, 1, 5);
	static const uint64_t fr[] = { 1 };
	trace(b, 1, 1, 1, fr);
}

/* segments-then-dump: a run of HEAP DUMP SEGMENTs that a HEAP DUMP record
 * ends, without HEAP DUMP END: two dumps. */
static void scen_segments_then_dump(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT);
	small_classes(b);
	item(b, 0x1000, 0, 1);
	rec_end(b, at);
	at = rec_begin(b, TAG_HEAP_DUMP);
	small_classes(b);
	item(b, 0x1000, 0, 2);
	item(b, 0x1010, 0x1000, 3);
	rec_end(b, at);
}

/* names-after-use: the UTF8 records of two field names come after the heap
 * dump whose CLASS DUMP used them. */
static void scen_names_after_use(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 4, 1300000000000ULL);
	utf8(b, SM_S_OBJECT, "java/lang/Object");
	utf8(b, SM_S_ITEM, "com/example/Item");
	utf8(b, SM_S_INTS, "[I");
	load_class(b, 1, SM_OBJECT, SM_S_OBJECT);
	load_class(b, 2, SM_ITEM, SM_S_ITEM);
	load_class(b, 3, SM_INTS, SM_S_INTS);
	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	small_pair(b);
	end_segments(b, at);
	utf8(b, SM_S_NEXT, "next");
	utf8(b, SM_S_N, "n");
}

/* ---- hostile scenarios: declared sizes the file cannot hold ------------- *
 * Each file is a few hundred bytes whose last record declares up to 4 GB; a
 * reader that allocated what is declared before reading it would need that
 * much memory.  The reader must fail quickly with "the file ends inside". */

/* huge-string-array: String 0x4000's value char[] 0x3000 declares
 * 0x7FFFF000 chars (4 GB) in a segment declaring 0xFFFFFFFF bytes; four
 * bytes of it are there. */
static void scen_huge_string_array(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT);
	small_classes(b);
	string_classes(b);
	string(b, 0x4000, 0x3000);
	u1(b, SUB_PRIMITIVE_ARRAY_DUMP);
	id(b, 0x3000);
	u4(b, 1);
	u4(b, 0x7FFFF000);
	u1(b, T_CHAR);
	put(b, "\0H\0i", 4);
	patch4(b, at, 0xFFFFFFFF);
}

/* huge-object-array: an Object[] 0x3000 declaring 0x3FFFF000 elements in a
 * segment declaring 0xFFFFFFFF bytes; one element is there. */
static void scen_huge_object_array(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT);
	small_classes(b);
	u1(b, SUB_OBJECT_ARRAY_DUMP);
	id(b, 0x3000);
	u4(b, 1);
	u4(b, 0x3FFFF000);
	id(b, SM_OBJECT);
	id(b, 0x1000);
	patch4(b, at, 0xFFFFFFFF);
}

/* huge-record: a TRACE record declaring 60 MiB (under the reader's 64 MiB
 * limit for records it reads whole) with 12 bytes of body. */
static void scen_huge_record(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 4, 1300000000000ULL);
	utf8(b, SM_S_OBJECT, "java/lang/Object");
	size_t at = rec_begin(b, TAG_TRACE);
	u4(b, 1);
	u4(b, 1);
	u4(b, 15 << 20);
	patch4(b, at, 60 << 20);
}

/* bad-trace-count: a TRACE record that counts 3 frames and holds 2 (20
 * bytes of body with 4-byte ids, where 3 frames take 24). */
static void scen_bad_trace_count(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 4, 1300000000000ULL);
	utf8(b, SM_S_OBJECT, "java/lang/Object");
	static const uint64_t frames[] = { 1, 2 };
	size_t at = b->n;
	trace(b, 1, 1, 2, frames);
	b->p[at + 9 + 11] = 3;           /* the frame count's low byte */
}

/* deep-chain: 4000 classes, each the subclass of the one before and with 8
 * int fields of its own, and one instance of each (without field bytes).
 * Laying out every class over its whole chain would take 4000 * 4000 / 2 * 8
 * flattened fields, some 2 GB, from 400 kB of input. */
enum { DC_CLASSES = 4000, DC_FIELDS = 8, DC_CLASS = 0x10000, DC_OBJ = 0x100000 };
static void scen_deep_chain(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT);
	small_classes(b);
	field fields[DC_FIELDS];
	for (unsigned i = 0; i < DC_FIELDS; i++)
		fields[i] = (field){ SM_S_N, T_INT, 0 };
	for (unsigned i = 0; i < DC_CLASSES; i++) {
		cdump c = { .id = DC_CLASS + i, .super = i ? DC_CLASS + i - 1 : SM_OBJECT,
		            .isize = 4 * DC_FIELDS * (i + 1), .fields = fields, .nif = DC_FIELDS };
		class_dump(b, &c);
	}
	buf none = { 0 };
	for (unsigned i = 0; i < DC_CLASSES; i++)
		instance_dump(b, DC_OBJ + i, DC_CLASS + i, &none);
	end_segments(b, at);
}

/* unfinished-chain: 4000 classes, each the subclass of the next, the last
 * one's superclass never dumped, and 20,000 instances of the first (without
 * field bytes).  Each instance's class chain is walked to its missing end:
 * 80 M steps from 800 kB of input (14 s for 80,000 instances before the
 * reader's budget of chain work). */
enum { UC_CLASSES = 4000, UC_INSTANCES = 20000, UC_CLASS = 0x10000, UC_OBJ = 0x1000000 };
static void scen_unfinished_chain(buf *b)
{
	size_t at = small_start(b, "JAVA PROFILE 1.0.2", TAG_HEAP_DUMP_SEGMENT);
	small_classes(b);
	for (unsigned i = 0; i < UC_CLASSES; i++) {
		cdump c = { .id = UC_CLASS + i, .super = UC_CLASS + i + 1 };
		class_dump(b, &c);
	}
	buf none = { 0 };
	for (unsigned i = 0; i < UC_INSTANCES; i++)
		instance_dump(b, UC_OBJ + 16 * i, UC_CLASS, &none);
	end_segments(b, at);
}

/* layout-*: a 64-bit HotSpot dump whose objects lie side by side as a VM of
 * the given layout places them (reference width, object and array header,
 * object alignment), from 0x10000000 on: below 32 GiB, where the first
 * address alone would say compressed oops and class pointers.  Classes:
 * A {int i; Object r}, B extends A {long l}, C {long x; double y} (every
 * field 8 bytes wide), D {byte b}, E (no fields); arrays int[], long[],
 * byte[], Object[].  The objects cycle through those of these kinds that
 * the bits of kinds name, arrays of 0-6 elements, in three HEAP DUMP
 * SEGMENTs. */
static uint64_t layout_size(unsigned oop, unsigned hdr, unsigned ahdr, unsigned align, unsigned kind,
                            unsigned len)
{
	uint64_t x;
	switch (kind) {
	case 0: x = hdr + 4 + oop; break;                      /* A */
	case 1: x = hdr + 4 + oop + 8; break;                  /* B */
	case 2: x = hdr + 16 + (hdr % 8 ? 4 : 0); break;       /* C: the 4-byte hole */
	case 3: x = hdr + 1; break;                            /* D */
	case 4: x = hdr; break;                                /* E */
	case 5: x = ahdr + 4 * len; break;                     /* int[] */
	case 6: x = ((ahdr + 7) & ~7u) + 8 * len; break;       /* long[] */
	case 7: x = ahdr + len; break;                         /* byte[] */
	case 8: x = (oop == 8 ? ((ahdr + 7) & ~7u) : ahdr) + oop * len; break; /* Object[] */
	default: x = (oop == 8 ? (hdr + 7) & ~7u : hdr) + 3 * oop;     /* F: the references' hole */
	}
	return (x + align - 1) & ~(uint64_t)(align - 1);
}

/* layout-big-first: a long[] of this many elements (zeros, a hole of the
 * file; a long[] rather than a byte[] for a short --values text) before the objects, in a segment of its own, as the Parallel GC or
 * ZGC place a program's big array among its first objects. */
static uint64_t big_first;

/* A primitive array of count zeros of the given type at obj, the zeros a
 * hole of the file (hole_at, hole_len: one a file). */
static void hole_array(buf *b, uint64_t obj, unsigned type, uint64_t count)
{
	u1(b, SUB_PRIMITIVE_ARRAY_DUMP);
	id(b, obj);
	u4(b, 1);
	u4(b, (uint32_t)count);
	u1(b, type);
	hole_at = b->n;
	hole_len = count * tsize(type);
}

/* kinds: bits 0-8 A to Object[] as above, bit 9 F {Object r, s, t}; SHORT_ARRAYS:
 * arrays of 1-4 elements; FEW_BYTES: a byte[3] every 40th object only (the
 * others cycle through the instance kinds); OFF_GRID: each object 32 bytes
 * after the one before, from an address that is an odd multiple of 8, as
 * the objects a dump writes one after the other when it walks the object
 * graph (ZGC) rather than the heap. */
enum { KIND_F = 1u << 9, SHORT_ARRAYS = 1u << 10, FEW_BYTES = 1u << 11, OFF_GRID = 1u << 12 };
/* wrapped: as wrapped-length, one 1.0.1 HEAP DUMP of over 4 GiB (a byte[]
 * hole after the objects) whose u4 length, its real one modulo 2^32, ends
 * after the first object, and which ends the file. */
static void layout_dump(buf *b, unsigned oop, unsigned hdr, unsigned ahdr, unsigned align,
                        unsigned kinds, int wrapped)
{
	unsigned list[10], nkinds = 0;
	for (unsigned k = 0; k < 10; k++)
		if (kinds >> k & 1)
			list[nkinds++] = k;
	header(b, wrapped ? "JAVA PROFILE 1.0.1" : "JAVA PROFILE 1.0.2", 8, 1700000000000ULL);
	const uint64_t S = 0x7F3A00001000ULL, C = 0x700000000ULL;
	static const char *const names[] = { "java/lang/Object", "com/example/A", "com/example/B",
		"com/example/C", "com/example/D", "com/example/E", "[I", "[J", "[B", "[Ljava/lang/Object;",
		"i", "r", "l", "x", "y", "b", "com/example/F", "s", "t" };
	enum { N_I = 10, N_R, N_L, N_X, N_Y, N_B, N_F, N_S, N_T };
	for (unsigned i = 0; i < sizeof names / sizeof *names; i++)
		utf8(b, S + 16 * i, names[i]);
	for (unsigned i = 0; i < 10; i++)
		load_class(b, i + 1, C + 0x100 * i, S + 16 * i);
	if (kinds & KIND_F)
		load_class(b, 11, C + 0xA00, S + 16 * N_F);
	size_t at = rec_begin(b, wrapped ? TAG_HEAP_DUMP : TAG_HEAP_DUMP_SEGMENT);
	static const field fa[] = { { S + 16 * N_I, T_INT, 0 }, { S + 16 * N_R, T_OBJECT, 0 } };
	static const field fb[] = { { S + 16 * N_L, T_LONG, 0 } };
	static const field fc[] = { { S + 16 * N_X, T_LONG, 0 }, { S + 16 * N_Y, T_DOUBLE, 0 } };
	static const field fd[] = { { S + 16 * N_B, T_BYTE, 0 } };
	static const field ff[] = { { S + 16 * N_R, T_OBJECT, 0 }, { S + 16 * N_S, T_OBJECT, 0 },
		{ S + 16 * N_T, T_OBJECT, 0 } };
	class_plain(b, C, 0, 0);
	cdump a = { .id = C + 0x100, .super = C, .isize = 12, .fields = fa, .nif = 2 };
	cdump bb = { .id = C + 0x200, .super = C + 0x100, .isize = 8, .fields = fb, .nif = 1 };
	cdump c = { .id = C + 0x300, .super = C, .isize = 16, .fields = fc, .nif = 2 };
	cdump d = { .id = C + 0x400, .super = C, .isize = 1, .fields = fd, .nif = 1 };
	class_dump(b, &a);
	class_dump(b, &bb);
	class_dump(b, &c);
	class_dump(b, &d);
	for (unsigned i = 5; i < 10; i++)
		class_plain(b, C + 0x100 * i, C, 0);
	if (kinds & KIND_F) {
		cdump f = { .id = C + 0xA00, .super = C, .isize = 24, .fields = ff, .nif = 3 };
		class_dump(b, &f);
	}
	uint64_t addr = kinds & OFF_GRID ? 0x10000008 : 0x10000000;
	if (big_first) {
		rec_end(b, at);
		at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
		hole_array(b, addr, T_LONG, big_first);
		patch4(b, at, (uint32_t)(b->n - at - 4 + hole_len));
		at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
		addr += layout_size(oop, hdr, ahdr, align, 6, (unsigned)big_first);
	}
	size_t declared_end = 0;
	for (unsigned k = 0; k < 400; k++) {
		if (k == 1)
			declared_end = b->n;
		unsigned kind = list[k % nkinds], len = (k / nkinds) % 7;
		if (kinds & SHORT_ARRAYS)
			len = 1 + (k / nkinds) % 4;
		if ((kinds & FEW_BYTES) && k % 40 == 39) {
			kind = 7;
			len = 3;
		}
		if (k && k % 150 == 0 && !wrapped) { /* the reading ahead crosses segments */
			rec_end(b, at);
			at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
		}
		buf f = { 0 };
		switch (kind) {
		case 0: u4(&f, k); id(&f, 0); instance_dump(b, addr, C + 0x100, &f); break;
		case 1: u4(&f, k); id(&f, 0x10000000); u8(&f, k); instance_dump(b, addr, C + 0x200, &f); break;
		case 2: u8(&f, k); u8(&f, 0); instance_dump(b, addr, C + 0x300, &f); break;
		case 3: u1(&f, k & 0x7F); instance_dump(b, addr, C + 0x400, &f); break;
		case 4: instance_dump(b, addr, C + 0x500, &f); break;
		case 5: { int32_t v[7] = { 0 }; primitive_array(b, addr, T_INT, len, v); break; }
		case 6: { int64_t v[7] = { 0 }; primitive_array(b, addr, T_LONG, len, v); break; }
		case 7: primitive_array(b, addr, T_BYTE, len, "abcdefg"); break;
		case 8: { uint64_t e[7] = { 0 }; object_array(b, addr, C + 0x900, len, e); break; }
		default: id(&f, 0x10000000); id(&f, 0); id(&f, 0); instance_dump(b, addr, C + 0xA00, &f);
		}
		free(f.p);
		addr += kinds & OFF_GRID ? 32 : layout_size(oop, hdr, ahdr, align, kind, len);
	}
	if (wrapped) {
		/* The byte[] that takes the record past 4 GiB, sized so that the
		 * record's length modulo 2^32 is declared_end's. */
		uint64_t len = ((uint64_t)1 << 32) + (declared_end - at - 4);
		uint64_t count = len - (b->n - at - 4) - (1 + 8 + 4 + 4 + 1) - (1 + 8);
		hole_array(b, addr, T_BYTE, count);
		root_simple(b, ROOT_UNKNOWN, 0x10000000);
		patch4(b, at, (uint32_t)(b->n - at - 4 + hole_len));
		return;
	}
	root_simple(b, ROOT_UNKNOWN, 0x10000000);
	end_segments(b, at);
}

static void scen_layout(buf *b, unsigned oop, unsigned hdr, unsigned ahdr, unsigned align,
                        unsigned kinds)
{
	layout_dump(b, oop, hdr, ahdr, align, kinds, 0);
}

enum { ALL_KINDS = 0x1FF, INSTANCES = 0x1F };
/* wrapped-length-id8: layout-nocoops-noccp's objects (16-byte headers,
 * 8-byte references) in one wrapped 1.0.1 HEAP DUMP (layout_dump): only
 * the objects beyond its declared end tell the layout. */
static void scen_wrapped_length_id8(buf *b) { layout_dump(b, 8, 16, 24, 8, ALL_KINDS, 1); }
static void scen_layout_coops(buf *b) { scen_layout(b, 4, 12, 16, 8, ALL_KINDS); }
static void scen_layout_nocoops(buf *b) { scen_layout(b, 8, 12, 16, 8, ALL_KINDS); }
static void scen_layout_nocoops_noccp(buf *b) { scen_layout(b, 8, 16, 24, 8, ALL_KINDS); }
static void scen_layout_coops_noccp(buf *b) { scen_layout(b, 4, 16, 24, 8, ALL_KINDS); }
static void scen_layout_align16(buf *b) { scen_layout(b, 4, 12, 16, 16, ALL_KINDS); }
/* Objects that are all 32 bytes in their own layout, where the layouts
 * aligned to 32 of the other width come as close: compressed oops without
 * compressed class pointers (B, byte[3], F), and aligned to 16 (A, short
 * int[], F).  Their own layout stands. */
static void scen_layout_coops_noccp_32s(buf *b) { scen_layout(b, 4, 16, 24, 8, 1u << 1 | 1u << 7 | KIND_F); }
static void scen_layout_align16_32s(buf *b)
{
	scen_layout(b, 4, 12, 16, 16, 1u << 0 | 1u << 5 | KIND_F | SHORT_ARRAYS);
}
/* Objects of 16 bytes (D, E), 32 bytes apart from 0x10000008: every layout
 * aligned to 32 would space them all, but an object at an odd multiple of 8
 * is not aligned to 16 or more; no layout aligned to 8 spaces them. */
static void scen_layout_off_grid(buf *b) { scen_layout(b, 4, 12, 16, 8, 1u << 3 | 1u << 4 | OFF_GRID); }
/* layout-graph-order: a dump in the object graph's order, as ZGC writes one
 * (8-byte references, compressed class pointers, objects aligned to 32, at
 * 256 GiB, above the 128 GiB compressed oops reach so aligned): 120 P {int a, b, c; Object r} of 32 bytes, each with an X {}
 * (32) right after it and an S {int n} (32) after that, P at 96-byte steps.
 * The dump writes P then S (64 bytes on: X between), and S then the next P;
 * every eighth P is followed by its X instead, and the Xs left come last.  A
 * layout of 16-byte headers sizes P 64 (16 + 12 + 8, rounded) and spaces
 * every P then S, so it spaces the most pairs; but P then X, 32 bytes apart,
 * overlap in it. */
static void scen_layout_graph_order(buf *b)
{
	header(b, "JAVA PROFILE 1.0.2", 8, 1700000000000ULL);
	/* The classes' mirrors in the heap too, below the objects. */
	const uint64_t S = 0x7F3A00001000ULL, BASE = (uint64_t)256 << 30, C = BASE - 0x100000;
	static const char *const names[] = { "java/lang/Object", "com/example/P", "com/example/X",
		"com/example/S", "a", "b", "c", "r", "n" };
	for (unsigned i = 0; i < sizeof names / sizeof *names; i++)
		utf8(b, S + 16 * i, names[i]);
	for (unsigned i = 0; i < 4; i++)
		load_class(b, i + 1, C + 0x100 * i, S + 16 * i);
	size_t at = rec_begin(b, TAG_HEAP_DUMP_SEGMENT);
	static const field fp[] = { { S + 16 * 4, T_INT, 0 }, { S + 16 * 5, T_INT, 0 },
		{ S + 16 * 6, T_INT, 0 }, { S + 16 * 7, T_OBJECT, 0 } };
	static const field fs[] = { { S + 16 * 8, T_INT, 0 } };
	class_plain(b, C, 0, 0);
	cdump p = { .id = C + 0x100, .super = C, .isize = 20, .fields = fp, .nif = 4 };
	cdump sc = { .id = C + 0x300, .super = C, .isize = 4, .fields = fs, .nif = 1 };
	class_dump(b, &p);
	class_plain(b, C + 0x200, C, 0);
	class_dump(b, &sc);
	enum { N = 120 };
	for (unsigned i = 0; i < N; i++) {
		uint64_t at_p = BASE + 96 * (uint64_t)i;
		buf f = { 0 };
		u4(&f, i);
		u4(&f, 0);
		u4(&f, 0);
		id(&f, at_p + 64);
		instance_dump(b, at_p, C + 0x100, &f);
		free(f.p);
		if (i % 8 == 7) {
			buf none = { 0 };
			instance_dump(b, at_p + 32, C + 0x200, &none);
		}
		buf g = { 0 };
		u4(&g, i);
		instance_dump(b, at_p + 64, C + 0x300, &g);
		free(g.p);
	}
	for (unsigned i = 0; i < N; i++)
		if (i % 8 != 7) {
			buf none = { 0 };
			instance_dump(b, BASE + 96 * (uint64_t)i + 32, C + 0x200, &none);
		}
	root_simple(b, ROOT_UNKNOWN, BASE);
	end_segments(b, at);
}

/* -XX:ObjectAlignmentInBytes=128: every object of the scenario is 128 bytes
 * whatever the layout, so the alignment stands out and the width does not. */
static void scen_layout_align128(buf *b) { scen_layout(b, 4, 12, 16, 128, ALL_KINDS); }
/* Compact object headers (JDK 24+, the default from JDK 27): an 8-byte
 * header, an array's length at 8 and its elements from 12. */
static void scen_layout_compact(buf *b) { scen_layout(b, 4, 8, 12, 8, ALL_KINDS); }
static void scen_layout_compact_nocoops(buf *b) { scen_layout(b, 8, 8, 12, 8, ALL_KINDS); }
/* JDK 22 to 26 without compressed class pointers: small elements from 20. */
static void scen_layout_noccp_jdk22(buf *b) { scen_layout(b, 4, 16, 20, 8, ALL_KINDS); }
/* The same VM's A, E, int[] and byte[] only: the layout with elements from
 * 24 spaces as many of them as compressed class pointers do. */
static void scen_layout_noccp_jdk22_arrays(buf *b)
{
	scen_layout(b, 4, 16, 20, 8, 1u << 0 | 1u << 4 | 1u << 5 | 1u << 7);
}
/* Such a VM's instances only: nothing tells where its array elements start. */
static void scen_layout_noccp_noarrays(buf *b) { scen_layout(b, 8, 16, 20, 8, INSTANCES); }
/* No compressed oops, compressed class pointers; objects that 16-byte
 * headers space alike (fields of 8 bytes, byte[] of 1-4 elements from 20):
 * the tie is between layouts of 8-byte references, and the first of them
 * is taken, not the first address's compressed oops. */
static void scen_layout_nocoops_tie(buf *b)
{
	scen_layout(b, 8, 12, 16, 8, 1u << 2 | 1u << 4 | 1u << 7 | KIND_F | SHORT_ARRAYS);
}
/* Neither compressed oops nor class pointers (JDK 8): the instances as
 * above, and a byte[3] every 40th object, which only 24-byte array headers
 * space: ten pairs, fewer than the margin, and both layouts of 8-byte
 * references are close.  The better of them is taken, not the first. */
/* layout-coops-noccp's objects after a long[] of 20 MiB: past the 16 MiB
 * the reader looks ahead at first. */
static void scen_layout_big_first(buf *b)
{
	big_first = (uint64_t)20 << 17;
	scen_layout(b, 4, 16, 24, 8, ALL_KINDS);
}
static void scen_layout_nocoops_neartie(buf *b)
{
	scen_layout(b, 8, 16, 24, 8, 1u << 2 | 1u << 4 | KIND_F | FEW_BYTES);
}

static const struct scenario {
	const char *name;
	void (*write)(buf *b);
	const char *doc;
} scenarios[] = {
	{ "android4", scen_android4,
	  "1.0.3, 4-byte ids: heaps app/zygote/image, Android roots, NODATA array, class overhead byte[], ART Strings" },
	{ "instances-first", scen_instances_first,
	  "objects and their String arrays before their CLASS DUMPs, the superclass last" },
	{ "truncated", scen_truncated, "a valid dump cut inside an INSTANCE DUMP" },
	{ "unknown-tag", scen_unknown_tag, "an unknown top-level record tag 0x55 between records" },
	{ "unknown-after-dump", scen_unknown_after_dump,
	  "1.0.1: a HEAP DUMP, then an unknown record of a sub-record's tag (0x08), then END THREAD" },
	{ "two-dumps", scen_two_dumps, "1.0.1 with two HEAP DUMP records holding the same ids" },
	{ "duplicate-ids", scen_duplicate_ids,
	  "objects with an id met before in the dump: after ascending ids, as the highest id, plain and String" },
	{ "segments", scen_segments, "1.0.2 with five HEAP DUMP SEGMENTs (one empty) and HEAP DUMP END" },
	{ "id8", scen_id8, "8-byte ids, JDK 17 compact Strings: LATIN1, UTF16 little-endian, empty" },
	{ "jdk6-strings", scen_jdk6_strings, "JDK 6 Strings: offset/count slices of one shared char[]" },
	{ "string-churn", scen_string_churn,
	  "3000 char[] of 1-40 chars, each followed by a String of an array up to 119 back" },
	{ "string-guess", scen_string_guess,
	  "Strings before their char[] whose ids are below the last array read (two runs of ids)" },
	{ "late-big", scen_late_big,
	  "char[]s of 0 to 300,000 units, each before its String (late with a small string cache)" },
	{ "superclass-cycle", scen_superclass_cycle, "class A super B super A; C its own superclass" },
	{ "unknown-subtag", scen_unknown_subtag, "the heap-dump sub-record tag 0x42" },
	{ "all-records", scen_all_records, "every top-level record kind and every GC-root kind" },
	{ "class-order", scen_class_order,
	  "HotSpot's CLASS DUMP order: java/lang/Class and java/lang/Object after other classes" },
	{ "length-zero", scen_length_zero,
	  "1.0.1 HEAP DUMP of length 0 (never patched) followed by its sub-records" },
	{ "length-zero-roots", scen_length_zero_roots,
	  "a HEAP DUMP SEGMENT of length 0 (never patched) starting with roots whose tags are top-level tags too" },
	{ "length-zero-roots-fit", scen_length_zero_roots_fit,
	  "length-zero-roots after a JNI LOCAL root that reads as a LOAD CLASS of the right length the file holds" },
	{ "length-zero-roots-short", scen_length_zero_roots_short,
	  "length-zero-roots after a JNI LOCAL root that reads as a LOAD CLASS of the wrong length, then a tag" },
	{ "length-zero-empty", scen_length_zero_empty,
	  "empty HEAP DUMP SEGMENTs of length 0 followed by UTF8, LOAD CLASS, TRACE and HEAP SUMMARY records" },
	{ "length-zero-frames", scen_length_zero_frames,
	  "a HEAP DUMP SEGMENT of length 0 starting with JAVA FRAME roots that read as UNLOAD CLASS records but for the time" },
	{ "length-zero-globals", scen_length_zero_globals,
	  "a HEAP DUMP SEGMENT of length 0 starting with JNI GLOBAL roots that read as UTF8 records but for NULs" },
	{ "length-zero-end", scen_length_zero_end,
	  "a HEAP DUMP SEGMENT of length 0 (never patched), HEAP DUMP END, then a second dump" },
	{ "shadowed-field", scen_shadowed_field,
	  "a subclass field with the name of a superclass field" },
	{ "names-late", scen_names_late, "every LOAD CLASS before the UTF8 record of its name" },
	{ "huge-string-array", scen_huge_string_array,
	  "a String's char[] declaring 4 GB in a file of a few hundred bytes" },
	{ "huge-object-array", scen_huge_object_array,
	  "an Object[] declaring a billion elements in a file of a few hundred bytes" },
	{ "huge-record", scen_huge_record, "a TRACE record declaring 60 MiB with 12 bytes of body" },
	{ "bad-trace-count", scen_bad_trace_count, "a TRACE record counting 3 frames with a body for 2" },
	{ "deep-chain", scen_deep_chain,
	  "4000 classes in one superclass chain, 8 fields each: 2 GB if every class held its chain" },
	{ "class-redumped", scen_class_redumped,
	  "B extends A, A dumped again with a field more between two instances of B" },
	{ "unfinished-chain", scen_unfinished_chain,
	  "4000 classes whose chain never ends in a dumped class, 20,000 instances of the first" },
	{ "nodata-string", scen_nodata_string,
	  "Strings whose char[] is a NODATA array (before and after the String), then an int[]" },
	{ "string-named-late", scen_string_named_late,
	  "the LOAD CLASS of java/lang/String after its CLASS DUMP and a first String" },
	{ "class-reused", scen_class_reused,
	  "a class id unloaded and loaded again for another class, whose instance precedes its CLASS DUMP" },
	{ "android-converted", scen_android_converted,
	  "an Android dump after hprof-conv: 1.0.2, ART's class names and sizes, no Android records" },
	{ "hprof-agent", scen_hprof_agent,
	  "the JVMTI hprof agent: 1.0.2, 4-byte ids, dotted names, CONTROL SETTINGS: HotSpot's 32-bit sizes" },
	{ "agent-cpu-samples", scen_agent_cpu_samples,
	  "an hprof agent profile (cpu=samples): threads, frames, traces, CPU SAMPLES, no heap dump" },
	{ "no-heap-dump", scen_no_heap_dump,
	  "names, a class, a frame and a trace, then the end: a dump cut before its heap dump" },
	{ "segments-then-dump", scen_segments_then_dump,
	  "HEAP DUMP SEGMENTs ended by a HEAP DUMP record instead of HEAP DUMP END" },
	{ "names-after-use", scen_names_after_use,
	  "the UTF8 records of two field names after the heap dump that used them" },
	{ "wide-class", scen_wide_class,
	  "a class of 3000 int fields whose superclass declares one of their names again" },
	{ "layout-coops", scen_layout_coops,
	  "8-byte ids, objects side by side: compressed oops and class pointers" },
	{ "layout-nocoops", scen_layout_nocoops,
	  "8-byte ids below 32 GiB, objects side by side: 8-byte references, 12-byte headers" },
	{ "layout-nocoops-noccp", scen_layout_nocoops_noccp,
	  "8-byte ids below 32 GiB, objects side by side: 8-byte references, 16-byte headers" },
	{ "layout-coops-noccp", scen_layout_coops_noccp,
	  "8-byte ids, objects side by side: 4-byte references, 16-byte headers" },
	{ "layout-align16", scen_layout_align16,
	  "8-byte ids, objects side by side: compressed oops, objects aligned to 16 bytes" },
	{ "layout-compact", scen_layout_compact,
	  "8-byte ids, objects side by side: compact object headers, compressed oops" },
	{ "layout-compact-nocoops", scen_layout_compact_nocoops,
	  "8-byte ids, objects side by side: compact object headers, 8-byte references" },
	{ "layout-noccp-jdk22", scen_layout_noccp_jdk22,
	  "8-byte ids, objects side by side: 16-byte headers, array elements from 20 (JDK 22+)" },
	{ "layout-noccp-jdk22-arrays", scen_layout_noccp_jdk22_arrays,
	  "8-byte ids, objects side by side: 16-byte headers, array elements from 20, half small arrays" },
	{ "layout-noccp-noarrays", scen_layout_noccp_noarrays,
	  "8-byte ids, instances side by side: 16-byte headers, 8-byte references, no arrays" },
	{ "layout-nocoops-tie", scen_layout_nocoops_tie,
	  "8-byte ids, objects side by side: 8-byte references, sizes that 12- and 16-byte headers share" },
	{ "layout-nocoops-neartie", scen_layout_nocoops_neartie,
	  "8-byte ids, objects side by side: 16-byte headers, ten byte[] of 400 objects tell them from 12" },
	{ "layout-coops-noccp-32s", scen_layout_coops_noccp_32s,
	  "8-byte ids, 4-byte references, 16-byte headers, objects all 32 bytes" },
	{ "layout-align16-32s", scen_layout_align16_32s,
	  "8-byte ids, objects aligned to 16, all 32 bytes" },
	{ "layout-graph-order", scen_layout_graph_order,
	  "8-byte ids, objects in the object graph's order (ZGC), aligned to 32: 16-byte headers space the most pairs" },
	{ "layout-off-grid", scen_layout_off_grid,
	  "8-byte ids, 16-byte objects 32 bytes apart at odd multiples of 8 (a dump in graph order)" },
	{ "layout-align128", scen_layout_align128,
	  "8-byte ids, objects side by side, aligned to 128 bytes: every one is 128 bytes in any layout" },
	{ "layout-big-first", scen_layout_big_first,
	  "8-byte ids, a long[] of 20 MiB and then objects side by side: 4-byte references, 16-byte headers" },
	{ "two-dumps-late", scen_two_dumps_late,
	  "two 1.0.1 HEAP DUMPs, each of char[]s and then Strings of them" },
	{ "many-arrays", scen_many_arrays,
	  "three dumps of 6000 char[] (the same ids) and 600 Strings of arrays all over each" },
	{ "late-across-dumps", scen_late_across_dumps,
	  "2000 Strings of a char[] their dump lacks, then 300 dumps of that char[] and a String" },
	{ "wrapped-length", scen_wrapped_length,
	  "1.0.1 HEAP DUMP over 4 GiB, length modulo 2^32 (a sparse file of 4 GiB)" },
	{ "wrapped-length-boundary", scen_wrapped_length_boundary,
	  "the same, its declared end between two sub-records, an END THREAD after it" },
	{ "wrapped-length-tag", scen_wrapped_length_tag,
	  "the same, its declared end one byte into the byte[] (after its tag)" },
	{ "wrapped-length-id8", scen_wrapped_length_id8,
	  "8-byte ids, objects side by side past the wrapped length's declared end" },
};
#define NSCENARIOS (sizeof scenarios / sizeof *scenarios)

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < NSCENARIOS; i++)
			printf("%s\t%s\n", scenarios[i].name, scenarios[i].doc);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: hprofgen SCENARIO OUTFILE\n       hprofgen --list\n");
		return 2;
	}
	for (size_t i = 0; i < NSCENARIOS; i++) {
		if (strcmp(argv[1], scenarios[i].name))
			continue;
		buf b = { 0 };
		scenarios[i].write(&b);
		FILE *fp = fopen(argv[2], "wb");
		int ok;
		if (hole_len)
			ok = fp && fwrite(b.p, 1, hole_at, fp) == hole_at &&
			     fseeko(fp, (off_t)hole_len, SEEK_CUR) == 0 &&
			     fwrite(b.p + hole_at, 1, b.n - hole_at, fp) == b.n - hole_at;
		else
			ok = fp && fwrite(b.p, 1, b.n, fp) == b.n;
		if (fp && fclose(fp) != 0)
			ok = 0;
		free(b.p);
		if (!ok) {
			perror(argv[2]);
			return 3;
		}
		return 0;
	}
	fprintf(stderr, "hprofgen: unknown scenario '%s' (see hprofgen --list)\n", argv[1]);
	return 2;
}
