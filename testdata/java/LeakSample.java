// LeakSample: a tiny Java 17 program with a deliberate leak, for heapdiff's
// tests.  make-leak-dumps.sh dumps it twice: before the leak and after it.
//
//   java -cp OUT leak.LeakSample READY_FILE GO_FILE DONE_FILE
//
// It builds a small steady heap, writes its pid to READY_FILE and waits for
// GO_FILE to appear; then it leaks, on purpose, into a static list that is
// never cleared:
//   SESSIONS  5000 leak.Session, each holding a byte[64] and a leak.Token
//   BIG       one long[200000] (1,600,016 bytes with compressed oops)
// and writes DONE_FILE, then sleeps until it is killed.  Nothing else
// changes, so the difference between the two dumps is the leak (plus a few
// objects of the JDK itself: the tests look only at the leak's classes).
package leak;

import java.io.File;
import java.io.FileWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

final class Token {
    final int serial;

    Token(int serial) {
        this.serial = serial;
    }
}

final class Session {
    final long id;
    final byte[] payload = new byte[64];
    final Token token;

    Session(long id) {
        this.id = id;
        this.token = new Token((int) id);
    }
}

public final class LeakSample {
    static final int SESSIONS = 5000;
    static final List<Session> LEAK = new ArrayList<>();
    static long[] BIG;
    static final List<String> STEADY = new ArrayList<>();

    private static void write(String path, String text) throws IOException {
        try (FileWriter w = new FileWriter(path)) {
            w.write(text);
        }
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 100; i++)
            STEADY.add("steady-" + i);
        long pid = ProcessHandle.current().pid();
        write(args[0], Long.toString(pid));
        File go = new File(args[1]);
        while (!go.exists())
            Thread.sleep(50);
        for (int i = 0; i < SESSIONS; i++)
            LEAK.add(new Session(i));
        BIG = new long[200000];
        write(args[2], Long.toString(pid));
        Thread.sleep(Long.MAX_VALUE);
    }
}
