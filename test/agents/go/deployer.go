package main

import (
	"context"
	"fmt"
	"iter"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// stepPause keeps WORKING and the next state apart, so a stream shows them as separate steps.
const stepPause = 20 * time.Millisecond

var versionPattern = regexp.MustCompile(`(?i)\b(?:build|version)\s+v?([0-9][0-9A-Za-z.+-]*)`)

func parseVersion(text string) string {
	if m := versionPattern.FindStringSubmatch(text); m != nil {
		return strings.TrimRight(m[1], ".+-")
	}
	return "unknown"
}

// deployer stops in AUTH_REQUIRED while Execute keeps running (a2a-go keeps the execution and the
// stream alive through that state), and goes on when POST /approve/<taskId> arrives outside A2A.
type deployer struct {
	base    string
	rounds  int
	mu      sync.Mutex
	waiting map[a2a.TaskID]chan bool // true: approved, false: canceled
}

func newDeployer(base string, rounds int) *deployer {
	return &deployer{base: base, rounds: rounds, waiting: map[a2a.TaskID]chan bool{}}
}

func (d *deployer) approve(id a2a.TaskID) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	ch, ok := d.waiting[id]
	if !ok {
		return false
	}
	delete(d.waiting, id)
	ch <- true
	return true
}

func (d *deployer) Execute(ctx context.Context, execCtx *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		status := func(state a2a.TaskState, text string, extra ...*a2a.Part) bool {
			return yield(a2a.NewStatusUpdateEvent(execCtx, state, agentText(execCtx, text, extra...)), nil)
		}
		if execCtx.StoredTask != nil {
			status(a2a.TaskStateFailed, "No deployment is running for this task")
			return
		}
		if !yield(a2a.NewSubmittedTask(execCtx, execCtx.Message), nil) {
			return
		}
		if !status(a2a.TaskStateWorking, "Preparing deployment") {
			return
		}
		time.Sleep(stepPause)
		for round := 1; round <= d.rounds; round++ {
			approvalURL := fmt.Sprintf("%s/approve/%s", d.base, execCtx.TaskID)
			text := "An operator must approve this deploy at " + approvalURL
			if d.rounds > 1 {
				text += fmt.Sprintf(" (approval %d of %d)", round, d.rounds)
			}
			// Register the waiter before announcing it, so an approval can never arrive first.
			ch := make(chan bool, 1)
			d.mu.Lock()
			d.waiting[execCtx.TaskID] = ch
			d.mu.Unlock()
			if !status(a2a.TaskStateAuthRequired, text, jsonPart(map[string]any{"approvalUrl": approvalURL})) {
				d.drop(execCtx.TaskID)
				return
			}
			select {
			case approved := <-ch:
				if !approved {
					return
				}
			case <-ctx.Done():
				d.drop(execCtx.TaskID)
				return
			}
			if !status(a2a.TaskStateWorking, "Approved; deploying") {
				return
			}
			time.Sleep(stepPause)
		}
		artifact := a2a.NewArtifactEvent(execCtx, jsonPart(map[string]any{"environment": "staging", "status": "deployed", "version": parseVersion(textOf(execCtx.Message))}))
		artifact.Artifact.Name = "deploy-result.json"
		artifact.Artifact.Description = "Deployment result"
		artifact.LastChunk = true
		if !yield(artifact, nil) {
			return
		}
		status(a2a.TaskStateCompleted, "Deployment complete")
	}
}

func (d *deployer) drop(id a2a.TaskID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.waiting, id)
}

func (d *deployer) Cancel(ctx context.Context, execCtx *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		d.mu.Lock()
		if ch, ok := d.waiting[execCtx.TaskID]; ok {
			delete(d.waiting, execCtx.TaskID)
			ch <- false
		}
		d.mu.Unlock()
		yield(a2a.NewStatusUpdateEvent(execCtx, a2a.TaskStateCanceled, agentText(execCtx, "Deployment canceled")), nil)
	}
}
