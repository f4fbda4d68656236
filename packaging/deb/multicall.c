/* One executable for both commands (the Debian package's /usr/bin/aggregatord, with
 * /usr/bin/aggregatorctl a symbolic link to it): the name it is started under picks the command.
 * Two statically linked Swift programs each carry the Swift runtime, Foundation and ICU's data
 * (34 MB): 119 MB stripped, against 61 MB for one executable that carries them once. The cost: as
 * aggregatorctl it loads the daemon's libraries too (libcurl's 31 among them), 5 to 13 ms more a
 * command (docs/BENCHMARKS.md, "The Debian package").
 *
 * SwiftPM compiles each executable target's top-level code as `<module>_main` (so tests can link
 * the module) and only names it `main` when linking that executable; `make deb` links the object
 * files of both targets with this file instead (packaging/deb/build-deb.sh). */
#include <stdio.h>
#include <string.h>

int aggregatord_main(int argc, char **argv);
int aggregatorctl_main(int argc, char **argv);

int main(int argc, char **argv) {
    const char *path = argc > 0 && argv[0] != NULL ? argv[0] : "";
    const char *slash = strrchr(path, '/');
    const char *name = slash != NULL ? slash + 1 : path;
    if (strcmp(name, "aggregatorctl") == 0) {
        return aggregatorctl_main(argc, argv);
    }
    if (strcmp(name, "aggregatord") == 0) {
        return aggregatord_main(argc, argv);
    }
    fprintf(stderr, "%s: started as '%s'; run it as aggregatord or aggregatorctl\n", path, name);
    return 2;
}
