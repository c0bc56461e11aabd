package sandbox

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// Network lets a sandboxed process reach hosts through a Proxy. Inside, Tofu's own program
// (the forwarder, run first by bubblewrap) listens on the namespace's loopback and carries
// each connection over the proxy's Unix socket, bound into the sandbox: the process has no
// other way out of its network namespace. The forwarder then runs the command as its child
// and exits as it does.
type Network struct {
	// Socket is the proxy's Unix socket on the host.
	Socket string
}

const (
	// forwardEnv names the proxy socket inside; set, it makes this program the forwarder.
	forwardEnv = "TOFU_SANDBOX_FORWARD"
	// socketInside is where the proxy's socket is bound (under the sandbox's own /run).
	socketInside = "/run/tofu/proxy.sock"
)

func init() {
	if sock := os.Getenv(forwardEnv); sock != "" && len(os.Args) > 1 {
		os.Exit(forward(sock, os.Args[1:]))
	}
}

// inside returns bubblewrap's arguments binding the socket, the forwarder to run before the
// command, and the command's environment.
func (n *Network) inside(exe string, env []string) (bind, pre, out []string) {
	bind = []string{"--bind", n.Socket, socketInside, "--ro-bind", exe, exe}
	return bind, []string{exe}, append(env, forwardEnv+"="+socketInside)
}

// forward listens on loopback, runs argv with the proxy variables pointing there, forwards
// each connection to sock, and returns argv's exit code.
func forward(sock string, argv []string) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "tofu sandbox: no loopback for the proxy: %v\n", err)
		return 126
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go relay(c, sock)
		}
	}()
	url := "http://" + ln.Addr().String()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = inherited()
	var env []string
	for _, kv := range os.Environ() {
		if len(kv) < len(forwardEnv)+1 || kv[:len(forwardEnv)+1] != forwardEnv+"=" {
			env = append(env, kv)
		}
	}
	for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		env = append(env, name+"="+url)
	}
	cmd.Env = append(env, "NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1")
	// The command's group receives the signals a stop sends; the forwarder outlives it
	// only to report how it ended.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ee.ExitCode()
		}
		fmt.Fprintf(os.Stderr, "tofu sandbox: %v\n", err)
		return 127
	}
	return 0
}

// relay carries one loopback connection to the proxy's socket.
func relay(c net.Conn, sock string) {
	defer c.Close()
	up, err := net.Dial("unix", sock)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
}
