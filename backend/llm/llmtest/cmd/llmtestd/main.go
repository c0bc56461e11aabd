// Command llmtestd serves the scripted demo model over Ollama's API, for end-to-end tests and
// `tofu` development without a real model. It prints its base URL on the first line of stdout.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/tofu-research/tofu/backend/llm/llmtest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (host:port; port 0 picks a free one)")
	ctxLen := flag.Int("context", 8192, "context length the demo model reports")
	flag.Parse()

	m := llmtest.DemoModel()
	m.ContextLength = *ctxLen
	srv, err := llmtest.Listen(*addr, m)
	if err != nil {
		log.Fatalf("llmtestd: %v", err)
	}
	srv.ScriptDemo()
	fmt.Println(srv.URL)
	log.Printf("llmtestd: serving %s at %s (OLLAMA_HOST=%s)", m.Name, srv.URL, srv.URL)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	srv.Close()
}
