// Package atspi reads the accessibility tree of desktop apps over AT-SPI (D-Bus) and acts on
// its nodes: the text view of the desktop for models without vision, like the browser's
// snapshot (roles, names, states, refs a tool can press).
package atspi

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/godbus/dbus/v5"
)

// ErrUnavailable means there is no accessibility bus: the session has no D-Bus, or AT-SPI
// (at-spi2-core) is not installed; fall back to screenshots.
var ErrUnavailable = errors.New("no AT-SPI accessibility bus")

const (
	registry    = "org.a11y.atspi.Registry"
	rootPath    = "/org/a11y/atspi/accessible/root"
	ifaceAcc    = "org.a11y.atspi.Accessible"
	ifaceAction = "org.a11y.atspi.Action"
	ifaceText   = "org.a11y.atspi.Text"
	ifaceEdit   = "org.a11y.atspi.EditableText"
	ifaceComp   = "org.a11y.atspi.Component"
)

// Bus is a connection to the accessibility bus.
type Bus struct {
	conn *dbus.Conn
}

// Connect finds the accessibility bus through the session bus (org.a11y.Bus, started on
// demand by at-spi-bus-launcher) and connects to it.
func Connect(ctx context.Context) (*Bus, error) {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		if _, err := os.Stat(fmt.Sprintf("/run/user/%d/bus", os.Getuid())); err != nil {
			return nil, fmt.Errorf("%w: no session bus (DBUS_SESSION_BUS_ADDRESS is unset)", ErrUnavailable)
		}
	}
	sess, err := dbus.ConnectSessionBus(dbus.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("%w: session bus: %v", ErrUnavailable, err)
	}
	var addr string
	err = sess.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(ctx, "org.a11y.Bus.GetAddress", 0).Store(&addr)
	sess.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: org.a11y.Bus did not answer (is at-spi2-core installed?): %v", ErrUnavailable, err)
	}
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("%w: connect to %s: %v", ErrUnavailable, addr, err)
	}
	return &Bus{conn: conn}, nil
}

// Close disconnects.
func (b *Bus) Close() error { return b.conn.Close() }

// node is one accessible object: the bus name of its app and its object path.
type node struct {
	Dest string
	Path dbus.ObjectPath
}

func (b *Bus) obj(n node) dbus.BusObject { return b.conn.Object(n.Dest, n.Path) }

func (b *Bus) children(ctx context.Context, n node) ([]node, error) {
	var out []struct {
		Dest string
		Path dbus.ObjectPath
	}
	if err := b.obj(n).CallWithContext(ctx, ifaceAcc+".GetChildren", 0).Store(&out); err != nil {
		return nil, err
	}
	nodes := make([]node, 0, len(out))
	for _, c := range out {
		if c.Path != "/org/a11y/atspi/null" {
			nodes = append(nodes, node{c.Dest, c.Path})
		}
	}
	return nodes, nil
}

func (b *Bus) prop(ctx context.Context, n node, iface, name string) (dbus.Variant, error) {
	var v dbus.Variant
	err := b.obj(n).CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, iface, name).Store(&v)
	return v, err
}

func (b *Bus) str(ctx context.Context, n node, name string) string {
	v, err := b.prop(ctx, n, ifaceAcc, name)
	if err != nil {
		return ""
	}
	s, _ := v.Value().(string)
	return s
}

// pid is the process behind an app's bus name.
func (b *Bus) pid(ctx context.Context, dest string) uint32 {
	var pid uint32
	_ = b.conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.GetConnectionUnixProcessID", 0, dest).Store(&pid)
	return pid
}
