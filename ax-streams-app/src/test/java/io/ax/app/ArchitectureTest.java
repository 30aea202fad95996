package io.ax.app;

import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packages of this module against the tables at the top of {@code topology-docs/ARCHITECTURE.md} (who may use
 * whom): the tables are read here, so the code and the doc cannot drift apart. Checked on the compiled main classes
 * (ArchUnit reads their class files: every field, signature, call, cast, annotation and class literal counts as a
 * use) and on the imports of the main sources (which also name what javac leaves out of a class file: an inlined
 * constant, a type in Javadoc): every package of the module has its row and every row its package; a package uses only
 * itself and the packages (or single classes) its row names; no cycle among the packages; Kafka's APIs only in the
 * packages whose row says so; and the decision core is pure: nothing but {@code java.*} and what its row names, and no
 * clock.
 */
class ArchitectureTest {
    private static final Path DOC = Path.of("..", "topology-docs", "ARCHITECTURE.md");
    private static final Path SOURCES = Path.of("src", "main", "java");
    private static final String WHERE = "topology-docs/ARCHITECTURE.md";
    /** Names in the table not starting with {@code io.} are relative to this package. */
    private static final String INTERNAL = "io.ax.app.internal.";
    private static final String CORE = INTERNAL + "core";
    private static final int SHOWN_PER_EDGE = 6;

    private static JavaClasses classes;
    private static Set<String> packages;
    private static Map<String, Row> rows;
    private static List<Import> imports;

    /** One package's row: what it may use (packages, and single classes of other packages), and whether Kafka. */
    record Row(String pkg, Set<String> usesPackages, Set<String> usesClasses, boolean kafka) {
        boolean allows(JavaClass target) {
            return allows(target.getPackageName(), topLevel(target).getName());
        }

        /** Whether this row's package may use the top-level class {@code topLevelClass} of {@code pkg} (null: the package as a whole). */
        boolean allows(String pkg, String topLevelClass) {
            return pkg.equals(this.pkg) || usesPackages.contains(pkg) || usesClasses.contains(topLevelClass);
        }

        Set<String> uses() {
            Set<String> uses = new TreeSet<>(usesPackages);
            uses.addAll(usesClasses);
            return uses;
        }
    }

    @BeforeAll
    static void importTheModuleAndReadTheTable() throws IOException, URISyntaxException {
        Path mainClasses = Path.of(AxScheduler.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        classes = new ClassFileImporter().importPath(mainClasses);
        packages = classes.stream().map(JavaClass::getPackageName).collect(Collectors.toCollection(TreeSet::new));
        rows = readTable(Files.readAllLines(DOC, StandardCharsets.UTF_8));
        imports = readImports();
    }

    @Test
    void shouldHaveARowForEveryPackageAndAPackageForEveryRow() {
        List<String> problems = new ArrayList<>();
        packages.stream().filter(pkg -> !rows.containsKey(pkg)).forEach(pkg -> problems.add(pkg + ": a package without a row"));
        rows.keySet().stream().filter(pkg -> !packages.contains(pkg)).forEach(pkg -> problems.add(pkg + ": a row without a package"));
        rows.values().forEach(row -> row.uses().stream().filter(name -> !exists(name))
                .forEach(name -> problems.add(shortName(row.pkg()) + ": its uses column names " + name + ", which is no package or class")));
        assertThat(problems).as("the tables of %s against the packages of ax-streams-app", WHERE).isEmpty();
    }

    @Test
    void shouldAllowNoCycleInTheTable() {
        assertThat(cycleIn(rows)).as("a cycle that the uses column of %s allows", WHERE).isEmpty();
    }

    @Test
    void shouldUseOnlyThePackagesItsRowNames() {
        Map<String, List<Dependency>> forbidden = new TreeMap<>();
        for (JavaClass origin : classes) {
            Row row = rows.get(origin.getPackageName());
            if (row == null) {
                continue; // shouldHaveARowForEveryPackageAndAPackageForEveryRow says so
            }
            for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                JavaClass target = dependency.getTargetClass().getBaseComponentType();
                if (packages.contains(target.getPackageName()) && !row.allows(target)) {
                    forbidden.computeIfAbsent(shortName(row.pkg()) + " uses " + shortName(target.getPackageName()),
                            edge -> new ArrayList<>()).add(dependency);
                }
            }
        }
        assertThat(describe(forbidden))
                .as("uses of packages that the row of the using package in %s does not name (its uses column)", WHERE)
                .isEmpty();
    }

    /**
     * The same rules on the sources' imports, which also see what the class files cannot: a constant (inlined by javac)
     * or a type named only in Javadoc.
     */
    @Test
    void shouldImportOnlyWhatTheRowAllows() {
        List<String> forbidden = new ArrayList<>();
        for (Import imported : imports) {
            Row row = rows.get(imported.from());
            String why = row == null ? null : forbidden(row, imported);
            if (why != null) {
                forbidden.add(imported.file() + " imports " + imported.name() + ": " + why);
            }
        }
        assertThat(forbidden).as("imports that %s does not allow", WHERE).isEmpty();
    }

    /** The table says no more than the code does: every name in a uses column is used by the row's package. */
    @Test
    void shouldUseEverythingItsRowNames() {
        Map<String, Set<String>> used = new TreeMap<>();
        for (JavaClass origin : classes) {
            Set<String> names = used.computeIfAbsent(origin.getPackageName(), p -> new TreeSet<>());
            for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                JavaClass target = dependency.getTargetClass().getBaseComponentType();
                names.add(target.getPackageName());
                names.add(topLevel(target).getName());
            }
        }
        for (Import imported : imports) {
            Set<String> names = used.computeIfAbsent(imported.from(), p -> new TreeSet<>());
            names.add(imported.pkg());
            if (imported.topLevelClass() != null) {
                names.add(imported.topLevelClass());
            }
        }
        List<String> unused = new ArrayList<>();
        rows.values().forEach(row -> row.uses().stream()
                .filter(name -> !used.getOrDefault(row.pkg(), Set.of()).contains(name))
                .forEach(name -> unused.add(shortName(row.pkg()) + " does not use " + shortName(name))));
        assertThat(unused).as("names in the uses column of %s that the code does not use: take them out", WHERE).isEmpty();
    }

    /** An import of a main source file: the package importing, and the package and top-level class imported. */
    record Import(Path file, String from, String name, String pkg, String topLevelClass) {
    }

    /** The imports of every main source file (a class, a nested class, a static member, a {@code *}). */
    private static List<Import> readImports() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(SOURCES)) {
            files = walk.filter(file -> file.toString().endsWith(".java")).sorted().toList();
        }
        assertThat(files).as("the main sources of ax-streams-app under %s", SOURCES.toAbsolutePath()).isNotEmpty();
        List<Import> imports = new ArrayList<>();
        for (Path file : files) {
            String from = null;
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                Matcher imported = IMPORT.matcher(line);
                if (line.startsWith("package ")) {
                    from = line.substring("package ".length(), line.indexOf(';')).strip();
                } else if (imported.matches()) {
                    String name = imported.group(1);
                    String[] parts = name.split("\\.");
                    int firstClass = 0;
                    while (firstClass < parts.length && !Character.isUpperCase(parts[firstClass].charAt(0))) {
                        firstClass++;
                    }
                    int packageParts = Math.min(firstClass, parts.length - (name.endsWith(".*") ? 1 : 0));
                    String pkg = String.join(".", List.of(parts).subList(0, packageParts));
                    String topLevelClass = firstClass < parts.length ? pkg + "." + parts[firstClass] : null;
                    imports.add(new Import(SOURCES.relativize(file), from, name, pkg, topLevelClass));
                } else if (TYPE_DECLARATION.matcher(line).lookingAt()) {
                    break;
                }
            }
        }
        return imports;
    }

    /** Why {@code row}'s package may not import what {@code imported} names, or null. */
    private static String forbidden(Row row, Import imported) {
        String pkg = imported.pkg();
        if (pkg.startsWith("org.apache.kafka") && !row.kafka()) {
            return "its row (" + shortName(row.pkg()) + ") says it uses no Kafka API";
        }
        if (packages.contains(pkg) && !row.allows(pkg, imported.topLevelClass())) {
            return "the uses column of " + shortName(row.pkg()) + " does not name " + shortName(pkg);
        }
        if (row.pkg().equals(CORE) && !pkg.startsWith("java.") && !row.allows(pkg, imported.topLevelClass())) {
            return "the core uses nothing but java.* and what its row names";
        }
        return null;
    }

    @Test
    void shouldHaveNoCycleAmongThePackages() {
        slices().assignedFrom(byPackage()).should().beFreeOfCycles()
                .because("a package and the packages it uses form a layer (" + WHERE + ")")
                .check(classes);
    }

    /**
     * Inside the core, calls go one way: a transition class uses the helpers below it and no helper calls a transition
     * back (one class per slice, nested classes with their top-level class). A loop such as {@code Attempts.dispatch →
     * Shards.fanOut → Attempts.dispatch} made every class in it depend on every other; the way out is the one the core
     * takes throughout: the lower class returns what to do and the caller does it.
     */
    @Test
    void shouldHaveNoCycleAmongTheCoreClasses() {
        slices().assignedFrom(byTopLevelClassOf(CORE)).should().beFreeOfCycles()
                .because("the decision core is layered: transitions (named for their input) over helpers (" + WHERE + ")")
                .check(classes);
    }

    @Test
    void shouldUseKafkaOnlyInThePackagesWhoseRowSaysSo() {
        String[] withoutKafka = rows.values().stream().filter(row -> !row.kafka()).map(Row::pkg).toArray(String[]::new);
        assertThat(withoutKafka).as("rows of %s that say 'Kafka APIs: no'", WHERE).isNotEmpty();
        noClasses().that().resideInAnyPackage(withoutKafka)
                .should().dependOnClassesThat().resideInAPackage("org.apache.kafka..")
                .because("their row in " + WHERE + " says they use no Kafka API")
                .check(classes);
    }

    @Test
    void shouldKeepTheCoreToJavaAndItsRow() {
        Row core = rows.get(CORE);
        assertThat(core).as("the row of core in %s", WHERE).isNotNull();
        assertThat(core.kafka()).as("core's row in %s says it uses Kafka", WHERE).isFalse();
        noClasses().that().resideInAPackage(CORE)
                .should().dependOnClassesThat(new DescribedPredicate<>("are neither in java.* nor named by core's row") {
                    @Override
                    public boolean test(JavaClass target) {
                        JavaClass type = target.getBaseComponentType();
                        return !type.isPrimitive() && !type.getPackageName().startsWith("java.") && !core.allows(type);
                    }
                })
                .because("the core decides from (task, input, now) alone: no I/O, no Kafka, nothing beyond its row (" + WHERE + ")")
                .check(classes);
    }

    @Test
    void shouldKeepTheCoreOffTheClock() {
        noClasses().that().resideInAPackage(CORE)
                .should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(System.class, "nanoTime")
                .orShould().callMethodWhere(target(name("now")).and(target(owner(resideInAPackage("java.time")))))
                .orShould().dependOnClassesThat().areAssignableTo(InstantSource.class)
                .orShould().dependOnClassesThat().areAssignableTo(Clock.class)
                .because("the core reads no clock: the time of a decision is its argument nowMs")
                .check(classes);
    }

    /** The rows of every table of the doc whose header has the columns "uses" and "Kafka APIs". */
    static Map<String, Row> readTable(List<String> lines) {
        Map<String, Row> rows = new LinkedHashMap<>();
        int usesColumn = -1;
        int kafkaColumn = -1;
        for (String line : lines) {
            if (!line.startsWith("|")) {
                usesColumn = -1;
                continue;
            }
            List<String> cells = cells(line);
            if (usesColumn < 0) {
                usesColumn = cells.indexOf("uses");
                kafkaColumn = cells.indexOf("Kafka APIs");
                if (usesColumn >= 0 && kafkaColumn < 0) {
                    throw new AssertionError(WHERE + ": a table with a uses column needs a 'Kafka APIs' column: " + line);
                }
                continue;
            }
            if (cells.get(0).startsWith("---")) {
                continue;
            }
            String kafka = cells.get(kafkaColumn);
            if (!kafka.equals("yes") && !kafka.equals("no")) {
                throw new AssertionError(WHERE + ": 'Kafka APIs' is yes or no, not '" + kafka + "': " + line);
            }
            Set<String> usesPackages = new TreeSet<>();
            Set<String> usesClasses = new TreeSet<>();
            for (String name : names(cells.get(usesColumn))) {
                boolean isClass = Character.isUpperCase(name.charAt(name.lastIndexOf('.') + 1));
                (isClass ? usesClasses : usesPackages).add(name);
            }
            for (String pkg : names(cells.get(0))) {
                if (rows.put(pkg, new Row(pkg, usesPackages, usesClasses, kafka.equals("yes"))) != null) {
                    throw new AssertionError(WHERE + ": two rows name " + pkg);
                }
            }
        }
        if (rows.isEmpty()) {
            throw new AssertionError(WHERE + ": no table with the columns 'uses' and 'Kafka APIs'");
        }
        return rows;
    }

    private static List<String> cells(String line) {
        String inner = line.substring(1, line.lastIndexOf('|'));
        List<String> cells = new ArrayList<>();
        for (String cell : inner.split("\\|", -1)) {
            cells.add(cell.strip());
        }
        return cells;
    }

    private static final Pattern IMPORT = Pattern.compile("import\\s+(?:static\\s+)?([\\w.]+(?:\\.\\*)?)\\s*;.*");
    private static final Pattern TYPE_DECLARATION =
            Pattern.compile("(public |final |abstract |sealed |non-sealed |class |interface |enum |record |@)");
    private static final Pattern NAME = Pattern.compile("`([A-Za-z_][A-Za-z0-9_.]*)`");

    /** The package and class names of a cell: in backquotes, relative to {@code io.ax.app.internal} unless they start with {@code io.}. */
    private static List<String> names(String cell) {
        List<String> names = new ArrayList<>();
        Matcher matcher = NAME.matcher(cell);
        while (matcher.find()) {
            String name = matcher.group(1);
            names.add(name.startsWith("io.") ? name : INTERNAL + name);
        }
        return names;
    }

    private static boolean exists(String name) {
        if (packages.contains(name) || classes.contain(name)) {
            return true;
        }
        String resource = name.replace('.', '/');
        ClassLoader loader = ArchitectureTest.class.getClassLoader();
        return loader.getResource(resource) != null || loader.getResource(resource + ".class") != null;
    }

    /** A cycle the rows allow, as {@code a → b → a}, or "" when there is none. */
    static String cycleIn(Map<String, Row> rows) {
        Map<String, Integer> state = new TreeMap<>(); // 1 on the path, 2 done
        for (String start : rows.keySet()) {
            List<String> path = new ArrayList<>();
            String cycle = cycleFrom(start, rows, state, path);
            if (!cycle.isEmpty()) {
                return cycle;
            }
        }
        return "";
    }

    private static String cycleFrom(String pkg, Map<String, Row> rows, Map<String, Integer> state, List<String> path) {
        Integer seen = state.get(pkg);
        if (seen != null && seen == 2) {
            return "";
        }
        path.add(shortName(pkg));
        if (seen != null) {
            return String.join(" → ", path.subList(path.indexOf(shortName(pkg)), path.size()));
        }
        state.put(pkg, 1);
        Row row = rows.get(pkg);
        if (row != null) {
            Set<String> next = new TreeSet<>(row.usesPackages());
            row.usesClasses().forEach(c -> next.add(c.substring(0, c.lastIndexOf('.'))));
            for (String used : next) {
                if (!used.equals(pkg) && rows.containsKey(used)) {
                    String cycle = cycleFrom(used, rows, state, path);
                    if (!cycle.isEmpty()) {
                        return cycle;
                    }
                }
            }
        }
        state.put(pkg, 2);
        path.remove(path.size() - 1);
        return "";
    }

    private static SliceAssignment byPackage() {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                String pkg = javaClass.getPackageName();
                return packages.contains(pkg) ? SliceIdentifier.of(shortName(pkg)) : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "the packages of ax-streams-app";
            }
        };
    }

    private static SliceAssignment byTopLevelClassOf(String pkg) {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                return javaClass.getPackageName().equals(pkg) ? SliceIdentifier.of(topLevel(javaClass).getSimpleName())
                        : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "the classes of " + shortName(pkg);
            }
        };
    }

    private static JavaClass topLevel(JavaClass javaClass) {
        JavaClass outer = javaClass;
        while (outer.getEnclosingClass().isPresent()) {
            outer = outer.getEnclosingClass().get();
        }
        return outer;
    }

    /** {@code io.ax.app.internal.core} → {@code core}; a public package keeps its full name. */
    private static String shortName(String pkg) {
        return pkg.startsWith(INTERNAL) ? pkg.substring(INTERNAL.length()) : pkg;
    }

    private static List<String> describe(Map<String, List<Dependency>> byEdge) {
        List<String> lines = new ArrayList<>();
        byEdge.forEach((edge, dependencies) -> {
            lines.add(edge + ":");
            dependencies.stream().sorted().limit(SHOWN_PER_EDGE).forEach(d -> lines.add("    " + d.getDescription()));
            if (dependencies.size() > SHOWN_PER_EDGE) {
                lines.add("    ... and " + (dependencies.size() - SHOWN_PER_EDGE) + " more");
            }
        });
        return lines;
    }
}
