// HeapSample: a tiny Java 17 program that builds a small heap with exactly
// known contents and then sits still, so that make-dump.sh can take a class
// histogram and a live heap dump of the same quiescent JVM with jcmd.
//
//   javac -d OUT HeapSample.java
//   java -cp OUT sample.HeapSample READY_FILE
//
// When the heap is built it writes its pid to READY_FILE and sleeps until it
// is killed.  Everything below is reachable from static fields of
// sample.HeapSample; testdata/hprof/sample.expected.json lists the values the
// tests check (keep the two in step).
//
//   LEAVES   a singly linked list of 1234 sample.Leaf; leaf i has id = i and
//            next = leaf i+1 (the last one's next is null)
//   CYCLE    sample.A -> sample.B -> sample.C -> sample.A (fields b, c, a)
//   ASCII, LATIN1, CYRILLIC, CJK, EMOJI
//            Strings with known text (LATIN1 coder for the first two, UTF16
//            for the others; EMOJI holds a surrogate pair)
//   INTS     int[1000], INTS[i] = 7 * i
//   LONGS    long[100], LONGS[i] = -i
//   MIXED    Object[8] with elements at 0, 2, 5, 7 only, the rest null
//   DERIVED  one sample.Derived extends sample.Middle extends sample.Base
package sample;

import java.io.FileWriter;
import java.io.IOException;

final class Leaf {
    final int id;
    Leaf next;

    Leaf(int id) {
        this.id = id;
    }
}

final class A {
    B b;
}

final class B {
    C c;
}

final class C {
    A a;
}

class Base {
    int baseValue = 11;
}

class Middle extends Base {
    long middleValue = 22L;
}

final class Derived extends Middle {
    String derivedName = "derived";
}

public final class HeapSample {
    static final int LEAF_COUNT = 1234;

    static Leaf LEAVES;
    static A CYCLE;
    static String ASCII = "heapfmt sample: plain ASCII";
    static String LATIN1 = "caf\u00e9";
    static String CYRILLIC = "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440";
    static String CJK = "\u65e5\u672c\u8a9e\u306e\u6587\u5b57\u5217";
    static String EMOJI = "smile \ud83d\ude00 end";
    static int[] INTS;
    static long[] LONGS;
    static Object[] MIXED;
    static Derived DERIVED;

    private HeapSample() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length != 1) {
            System.err.println("usage: sample.HeapSample READY_FILE");
            System.exit(2);
        }
        Leaf head = null;
        for (int i = LEAF_COUNT - 1; i >= 0; i--) {
            Leaf l = new Leaf(i);
            l.next = head;
            head = l;
        }
        LEAVES = head;

        A a = new A();
        B b = new B();
        C c = new C();
        a.b = b;
        b.c = c;
        c.a = a;
        CYCLE = a;

        INTS = new int[1000];
        for (int i = 0; i < INTS.length; i++)
            INTS[i] = 7 * i;
        LONGS = new long[100];
        for (int i = 0; i < LONGS.length; i++)
            LONGS[i] = -i;
        DERIVED = new Derived();
        MIXED = new Object[8];
        MIXED[0] = a;
        MIXED[2] = ASCII;
        MIXED[5] = LONGS;
        MIXED[7] = DERIVED;

        System.gc();
        try (FileWriter w = new FileWriter(args[0])) {
            w.write(Long.toString(ProcessHandle.current().pid()));
            w.write('\n');
        }
        for (;;)
            Thread.sleep(60_000);
    }
}
