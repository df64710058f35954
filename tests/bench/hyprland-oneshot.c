/* A hyprctl-like one-shot socket client for the benchmark baseline:
 * connect to $XDG_RUNTIME_DIR/hypr/$HYPRLAND_INSTANCE_SIGNATURE/.socket.sock,
 * write argv[1], read to EOF, print. Same cost shape as `hyprctl` (one
 * process, one connection per call) without needing Hyprland installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  const char *rt = getenv("XDG_RUNTIME_DIR"), *sig = getenv("HYPRLAND_INSTANCE_SIGNATURE");
  if (!rt || !sig) return 2;
  struct sockaddr_un a = {0};
  a.sun_family = AF_UNIX;
  snprintf(a.sun_path, sizeof a.sun_path, "%s/hypr/%s/.socket.sock", rt, sig);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { perror("connect"); return 1; }
  size_t n = strlen(argv[1]);
  if (write(fd, argv[1], n) != (ssize_t)n) return 1;
  char buf[65536];
  ssize_t r;
  while ((r = read(fd, buf, sizeof buf)) > 0) fwrite(buf, 1, (size_t)r, stdout);
  close(fd);
  return 0;
}
