# Builds the release binary. OpenBench and similar frameworks call `make EXE=path`
# and expect the engine at that path.
EXE ?= menagerie
CARGO ?= cargo

.PHONY: all clean test
all:
	$(CARGO) build --release
	cp target/release/menagerie $(EXE)

test:
	$(CARGO) test --release

clean:
	$(CARGO) clean
