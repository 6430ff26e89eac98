// Command etcdmember runs one localetcd member as a process of its own,
// so that it can be stopped (SIGSTOP) and continued as a real process
// is; localetcd builds and starts it (Cluster.RestartProcess).
package main

import (
	"log"
	"os"

	"github.com/seqd/seqd/internal/localetcd"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: etcdmember MEMBER-JSON")
	}
	if err := localetcd.RunMember(os.Args[1]); err != nil {
		log.Fatal(err)
	}
}
