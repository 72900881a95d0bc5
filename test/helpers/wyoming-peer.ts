// Run inside a peer's namespace: connects to the Wyoming listener at argv[2]:argv[3], asks
// `describe`, and prints whether it was answered, closed, or heard nothing within 5 s.

if (import.meta.main) {
  const done = (word: string) => {
    process.stdout.write(word);
    process.exit(0);
  };
  setTimeout(() => done("silent"), 5000);
  await Bun.connect({
    hostname: process.argv[2] ?? "",
    port: Number(process.argv[3]),
    socket: {
      open(socket) {
        socket.write('{"type":"describe"}\n');
      },
      data: () => done("answered"),
      close: () => done("closed"),
      error: () => done("closed"),
    },
  }).catch(() => done("refused"));
}
