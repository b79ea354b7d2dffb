package io.meshdns.dnsjava.nativeimage.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.testsupport.ImageHeapCheck;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.xbill.DNS.Name;

/**
 * The classification against dnsjava's own byte code: every class that holds or computes host state,
 * randomness, threads or sockets in its static initialiser is initialised at run time, and initialising
 * every other class (as a native build does at build time) neither initialises a run-time class nor leaves
 * such an object in a static field.
 */
class DnsjavaClassificationTest {

    /** Static field types that mean the class holds state of the host or of the running process. */
    private static final Set<String> HOST_STATE_FIELD_TYPES = Set.of(
            "java/util/Random", "java/security/SecureRandom", "java/util/SplittableRandom",
            "java/net/InetAddress", "java/net/Inet4Address", "java/net/Inet6Address", "java/net/InetSocketAddress",
            "java/net/SocketAddress", "java/lang/Thread", "java/nio/channels/Selector",
            "java/util/concurrent/Executor", "java/util/concurrent/ExecutorService",
            "java/util/concurrent/ScheduledExecutorService", "java/util/concurrent/ScheduledThreadPoolExecutor",
            "org/xbill/DNS/Resolver", "org/xbill/DNS/ResolverConfig", "org/xbill/DNS/hosts/HostsFileParser",
            "org/xbill/DNS/DefaultIoClient", "org/xbill/DNS/config/ResolverConfigProvider");

    /** Calls in a static initialiser that read the host (properties, environment, files, name service) or start something. */
    private static final Set<String> HOST_READING_CALLS = Set.of(
            "java/lang/System.getProperty", "java/lang/System.getProperties", "java/lang/System.getenv",
            "java/lang/Boolean.getBoolean", "java/lang/Integer.getInteger", "java/lang/Long.getLong",
            "java/net/InetAddress.getByName", "java/net/InetAddress.getAllByName", "java/net/InetAddress.getLocalHost",
            "java/net/InetAddress.getLoopbackAddress", "java/net/InetAddress.getByAddress",
            "java/net/InetSocketAddress.<init>", "java/io/FileInputStream.<init>", "java/io/FileReader.<init>",
            "java/nio/file/Files.newBufferedReader", "java/nio/file/Files.readAllLines", "java/nio/file/Files.lines",
            "java/nio/file/Files.newInputStream", "java/util/Random.<init>", "java/security/SecureRandom.<init>",
            "java/lang/Thread.<init>", "java/nio/channels/Selector.open",
            "java/util/concurrent/ScheduledThreadPoolExecutor.<init>", "java/util/concurrent/Executors.newCachedThreadPool",
            "java/util/concurrent/Executors.newSingleThreadScheduledExecutor");

    private static Path dnsjavaJar;
    private static Map<String, byte[]> classFiles;

    @BeforeAll
    static void readDnsjava() throws IOException, URISyntaxException {
        dnsjavaJar = Path.of(Name.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        classFiles = new TreeMap<>();
        try (JarFile jar = new JarFile(dnsjavaJar.toFile())) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                JarEntry entry = e.nextElement();
                var name = DnsjavaClassification.classNameOf(entry.getName());
                if (name.isPresent()) {
                    try (InputStream in = jar.getInputStream(entry)) {
                        classFiles.put(name.get(), in.readAllBytes());
                    }
                }
            }
        }
        assertTrue(classFiles.size() > 300, "dnsjava's classes read from " + dnsjavaJar + ": " + classFiles.size());
    }

    @Test
    void everyClassHoldingOrReadingHostStateIsInitialisedAtRunTime() {
        List<String> missing = new ArrayList<>();
        classFiles.forEach((name, bytes) -> {
            if (DnsjavaClassification.runtimeReason(name).isPresent()) {
                return;
            }
            for (String why : hostStateOf(bytes)) {
                missing.add(name + ": " + why);
            }
        });
        assertEquals(List.of(), missing, "dnsjava classes with host state that would be initialised at build time");
    }

    @Test
    void theScanRecognisesTheKnownCases() {
        // The scan itself must see what the classification is for, or the test above proves nothing.
        assertTrue(hostStateOf(classFiles.get("org.xbill.DNS.Header")).contains("static field random : java/util/Random"));
        assertTrue(hostStateOf(classFiles.get("org.xbill.DNS.Options")).stream().anyMatch(w -> w.contains("System.getProperty")));
        assertTrue(hostStateOf(classFiles.get("org.xbill.DNS.SimpleResolver")).stream().anyMatch(w -> w.contains("InetSocketAddress")));
        assertTrue(hostStateOf(classFiles.get("org.xbill.DNS.Lookup")).stream().anyMatch(w -> w.contains("org/xbill/DNS/Resolver")));
        assertTrue(hostStateOf(classFiles.get("org.xbill.DNS.NioClient")).stream().anyMatch(w -> w.contains("java/lang/Thread")));
        assertTrue(hostStateOf(classFiles.get("org.xbill.DNS.Name")).isEmpty(), "Name is a value class");
    }

    @Test
    void classifiesTheResolverSideAtRunTimeAndTheValueClassesAtBuildTime() {
        for (String runtime : List.of("org.xbill.DNS.Lookup", "org.xbill.DNS.ResolverConfig", "org.xbill.DNS.Header",
                "org.xbill.DNS.SimpleResolver", "org.xbill.DNS.ExtendedResolver", "org.xbill.DNS.ExtendedResolver$Resolution",
                "org.xbill.DNS.spi.DnsjavaInetAddressResolver", "org.xbill.DNS.spi.DnsjavaInetAddressResolverProvider",
                "org.xbill.DNS.config.ResolvConfResolverConfigProvider",
                "org.xbill.DNS.config.WindowsResolverConfigProvider$InnerWindowsResolverConfigProvider",
                "org.xbill.DNS.hosts.HostsFileParser", "org.xbill.DNS.NioUdpClient")) {
            assertTrue(DnsjavaClassification.runtimeReason(runtime).isPresent(), runtime);
            assertTrue(classFiles.containsKey(runtime), runtime + " is in this dnsjava");
        }
        for (String buildTime : List.of("org.xbill.DNS.Name", "org.xbill.DNS.Type", "org.xbill.DNS.DClass",
                "org.xbill.DNS.Rcode", "org.xbill.DNS.Opcode", "org.xbill.DNS.Flags", "org.xbill.DNS.Section",
                "org.xbill.DNS.TSIG", "org.xbill.DNS.Message", "org.xbill.DNS.Record", "org.xbill.DNS.ARecord",
                "org.xbill.DNS.Type$TypeMnemonic", "org.xbill.DNS.Mnemonic")) {
            assertFalse(DnsjavaClassification.runtimeReason(buildTime).isPresent(), buildTime);
        }
    }

    @Test
    void readsClassNamesOfMultiReleaseEntries() {
        assertEquals("org.xbill.DNS.spi.DnsjavaInetAddressResolver", DnsjavaClassification
                .classNameOf("META-INF/versions/18/org/xbill/DNS/spi/DnsjavaInetAddressResolver.class").orElseThrow());
        assertEquals("org.xbill.DNS.Name", DnsjavaClassification.classNameOf("org/xbill/DNS/Name.class").orElseThrow());
        assertTrue(DnsjavaClassification.classNameOf("META-INF/versions/11/module-info.class").isEmpty());
        assertTrue(DnsjavaClassification.classNameOf("messages.properties").isEmpty());
    }

    @Test
    void initialisingTheBuildTimeClassesFreezesNothingOfTheHost() throws Exception {
        Set<String> runtime = new LinkedHashSet<>();
        List<String> buildTime = new ArrayList<>();
        classFiles.keySet().forEach(n -> (DnsjavaClassification.runtimeReason(n).isPresent() ? runtime : buildTime).add(n));
        URL slf4j = org.slf4j.LoggerFactory.class.getProtectionDomain().getCodeSource().getLocation();
        ImageHeapCheck.Result result = ImageHeapCheck.run(new URL[] {dnsjavaJar.toUri().toURL(), slf4j}, buildTime, runtime,
                name -> false);
        assertEquals(List.of(), result.runtimeClassesInitialised(), result.describe());
        assertEquals(List.of(), result.forbiddenObjects(), result.describe());
        assertTrue(result.initialisedClasses().contains("org.xbill.DNS.Name"));
        assertTrue(result.initialisedClasses().contains("org.xbill.DNS.TSIG"));
        assertTrue(result.initialisedClasses().size() > 150, "build-time classes initialised: " + result.initialisedClasses().size()
                + ", failed: " + result.failedToInitialise());
    }

    @Test
    void theHeapCheckSeesARandomGeneratorAndARunTimeClassInitialisedOnTheWay() throws Exception {
        // Header holds a SecureRandom and Message's constructor initialises Header: if both were left to build
        // time, the check must say so.
        Set<String> runtime = Set.of("org.xbill.DNS.Lookup");
        URL slf4j = org.slf4j.LoggerFactory.class.getProtectionDomain().getCodeSource().getLocation();
        ImageHeapCheck.Result result = ImageHeapCheck.run(new URL[] {dnsjavaJar.toUri().toURL(), slf4j},
                List.of("org.xbill.DNS.Header"), runtime, name -> false);
        assertTrue(result.forbiddenObjects().stream().anyMatch(o -> o.startsWith("org.xbill.DNS.Header.random")), result.describe());

        result = ImageHeapCheck.run(new URL[] {dnsjavaJar.toUri().toURL(), slf4j},
                List.of("org.xbill.DNS.Lookup"), Set.of("org.xbill.DNS.ResolverConfig"), name -> false);
        assertTrue(result.runtimeClassesInitialised().contains("org.xbill.DNS.ResolverConfig"), result.describe());
        assertTrue(result.forbiddenObjects().stream().anyMatch(o -> o.contains("InetSocketAddress") || o.contains("InetAddress")),
                "the host's nameserver addresses, reached from Lookup.defaultResolver:" + result.describe());
    }

    @Test
    void theExtensionDescriptorRemovesExactlyTheListedServices() throws IOException {
        java.util.Properties descriptor = new java.util.Properties();
        try (InputStream in = DnsjavaNativeProcessor.class.getClassLoader().getResourceAsStream("META-INF/quarkus-extension.properties")) {
            descriptor.load(in);
        }
        assertEquals("io.meshdns:meshdns-dnsjava-native-deployment", descriptor.getProperty("deployment-artifact")
                .substring(0, descriptor.getProperty("deployment-artifact").lastIndexOf(':')));
        Set<String> removed = Set.of(descriptor.getProperty("removed-resources.dnsjava:dnsjava").split(","));
        assertEquals(DnsjavaClassification.REMOVED_RESOURCES.keySet(), removed);
        try (JarFile jar = new JarFile(dnsjavaJar.toFile())) {
            for (String resource : removed) {
                assertTrue(jar.getEntry(resource) != null, resource + " is in this dnsjava (else the removal is stale)");
            }
        }
    }

    @Test
    void dnsjavaBringsNoJna() {
        // The Windows provider's substitutions are what lets a native image do without it.
        assertThrows(ClassNotFoundException.class, () -> Class.forName("com.sun.jna.Pointer"));
    }

    /**
     * Static fields of host-state types, and host-reading calls made by the static initialiser or by the
     * methods of the same class it calls (dnsjava's initialisers often delegate, as {@code Options.refresh()}).
     */
    private static List<String> hostStateOf(byte[] classFile) {
        List<String> why = new ArrayList<>();
        Map<String, List<String>> callsByMethod = new TreeMap<>();
        String[] self = new String[1];
        new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
                self[0] = name;
            }

            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
                if ((access & Opcodes.ACC_STATIC) != 0) {
                    Type t = Type.getType(descriptor);
                    while (t.getSort() == Type.ARRAY) {
                        t = t.getElementType();
                    }
                    if (t.getSort() == Type.OBJECT && HOST_STATE_FIELD_TYPES.contains(t.getInternalName())) {
                        why.add("static field " + name + " : " + t.getInternalName());
                    }
                }
                return null;
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                List<String> calls = callsByMethod.computeIfAbsent(name + descriptor, k -> new ArrayList<>());
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean itf) {
                        calls.add(owner + "." + method + desc);
                    }
                };
            }
        }, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        java.util.Deque<String> todo = new java.util.ArrayDeque<>();
        Set<String> visited = new java.util.HashSet<>();
        callsByMethod.keySet().stream().filter(m -> m.startsWith("<clinit>")).forEach(todo::add);
        while (!todo.isEmpty()) {
            String method = todo.pop();
            if (!visited.add(method)) {
                continue;
            }
            for (String call : callsByMethod.getOrDefault(method, List.of())) {
                String ownerAndName = call.substring(0, call.indexOf('('));
                if (HOST_READING_CALLS.contains(ownerAndName)) {
                    why.add("static initialiser " + (method.startsWith("<clinit>") ? "" : "(through " + method + ") ")
                            + "calls " + ownerAndName);
                } else if (call.startsWith(self[0] + ".")) {
                    todo.push(call.substring(self[0].length() + 1));
                }
            }
        }
        return why;
    }
}
