// Command llmtestd serves the scripted demo model (or a JSON script) over Ollama's, OpenAI's and
// Anthropic's APIs, for end-to-end tests and offline development. It prints its base URL first.
// `tofu dev fake-model` is the same server inside the tofu binary.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/tofu-research/tofu/backend/llm/scripted"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (host:port; port 0 picks a free one)")
	ctxLen := flag.Int("context", 8192, "context length the demo model reports")
	script := flag.String("script", "", "JSON script to serve (see docs/PROVIDERS.md) instead of the demo")
	flag.Parse()

	srv, err := scripted.ListenDemo(*addr, *ctxLen, *script)
	if err != nil {
		log.Fatalf("llmtestd: %v", err)
	}
	fmt.Println(srv.URL)
	log.Printf("llmtestd: serving at %s (OLLAMA_HOST=%s)", srv.URL, srv.URL)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	srv.Close()
}
