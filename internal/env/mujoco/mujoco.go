//go:build mujoco

package mujoco

/*
#cgo LDFLAGS: -lmujoco
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mujoco/mujoco.h>

// MuJoCo's default handlers write MUJOCO_LOG.TXT into the working directory,
// a file smrl did not claim. Warnings are counted in mjData.warning instead
// (an unstable step resets the data, as in Gymnasium); an error is fatal.
static void smrl_warning(const char* msg) { (void)msg; }
static void smrl_error(const char* msg) {
	fprintf(stderr, "smrl: MuJoCo error: %s\n", msg);
	exit(3);
}
static void smrl_handlers(void) {
	mju_user_warning = smrl_warning;
	mju_user_error = smrl_error;
}

// smrl_load compiles the MJCF text xml (len bytes) from a virtual file.
static mjModel* smrl_load(const char* xml, int len, char* err, int errsz) {
	mjVFS* vfs = malloc(sizeof(mjVFS));
	if (!vfs) return NULL;
	mj_defaultVFS(vfs);
	if (mj_makeEmptyFileVFS(vfs, "model.xml", len) != 0) { free(vfs); return NULL; }
	memcpy(vfs->filedata[0], xml, len);
	mjModel* m = mj_loadXML("model.xml", vfs, err, errsz);
	mj_deleteVFS(vfs);
	free(vfs);
	return m;
}

// smrl_restore sets the state of d to (qpos, qvel), already written into
// d->qpos and d->qvel, as Gymnasium's reset does (mj_resetData, set_state:
// time 0, no warm start of the constraint solver, then mj_forward). The
// tasks have no activations, mocap bodies or applied forces.
static void smrl_restore(const mjModel* m, mjData* d) {
	d->time = 0;
	memset(d->qacc_warmstart, 0, sizeof(mjtNum) * m->nv);
	mj_forward(m, d);
}

// smrl_step plays the control already in d->ctrl for n steps of the model.
static void smrl_step(const mjModel* m, mjData* d, int n) {
	for (int i = 0; i < n; i++) mj_step(m, d);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

var handlersOnce sync.Once

// model is a compiled MuJoCo model (mjModel), read-only once loaded and so
// shared by every goroutine's data.
type model struct {
	m          *C.mjModel
	nq, nv, nu int
	timestep   float64
}

// errLoad is a model that MuJoCo cannot compile (a bug of the asset).
var errLoad = errors.New("mujoco: cannot compile the model")

// loadModel compiles MJCF text.
func loadModel(xml string) (*model, error) {
	handlersOnce.Do(func() { C.smrl_handlers() })
	cs := C.CString(xml)
	defer C.free(unsafe.Pointer(cs))
	var buf [1000]C.char
	m := C.smrl_load(cs, C.int(len(xml)), &buf[0], C.int(len(buf)))
	if m == nil {
		return nil, fmt.Errorf("%w: %s", errLoad, C.GoString(&buf[0]))
	}
	md := &model{m: m, nq: int(m.nq), nv: int(m.nv), nu: int(m.nu), timestep: float64(m.opt.timestep)}
	runtime.AddCleanup(md, func(m *C.mjModel) { C.mj_deleteModel(m) }, m)
	return md, nil
}

// bodyID returns the index of the named body, or −1.
func (m *model) bodyID(name string) int {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return int(C.mj_name2id(m.m, C.mjOBJ_BODY, cs))
}

// floats views n mjtNums of C memory as a slice.
func floats(p *C.mjtNum, n int) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(p)), n)
}

// data is one simulation state (mjData) of a model, with views of its
// arrays. It is not safe for concurrent use.
type data struct {
	m               *model
	d               *C.mjData
	qpos, qvel, ctl []float64
	xpos            []float64 // body positions, 3 per body (world frame)
}

func newData(m *model) *data {
	d := C.mj_makeData(m.m)
	if d == nil {
		panic("mujoco: mj_makeData failed (out of memory)")
	}
	dt := &data{m: m, d: d, qpos: floats(d.qpos, m.nq), qvel: floats(d.qvel, m.nv),
		ctl: floats(d.ctrl, m.nu), xpos: floats(d.xpos, 3*int(m.m.nbody))}
	runtime.AddCleanup(dt, func(d *C.mjData) { C.mj_deleteData(d) }, d)
	return dt
}

// restore makes qpos and qvel (written by the caller into d.qpos, d.qvel)
// the state, as after Gymnasium's reset, and computes its kinematics.
func (d *data) restore() {
	C.smrl_restore(d.m.m, d.d)
	runtime.KeepAlive(d)
}

// step plays action a (clamped by MuJoCo to the actuators' ctrlrange) for
// n steps of the model: Gymnasium's do_simulation(a, frame_skip).
func (d *data) step(a []float64, n int) {
	copy(d.ctl, a)
	C.smrl_step(d.m.m, d.d, C.int(n))
	runtime.KeepAlive(d)
}

// unstable reports whether MuJoCo found a non-finite acceleration since
// the data was made (and reset the state, as Gymnasium's MuJoCo does).
func (d *data) unstable() int { return int(d.d.warning[C.mjWARN_BADQACC].number) }

// bodyMass returns the mass of body i and its diagonal inertia about its
// centre of mass, and the centre's offset from the body frame.
func (m *model) bodyMass(i int) (mass float64, inertia, ipos [3]float64) {
	mass = floats(m.m.body_mass, int(m.m.nbody))[i]
	copy(inertia[:], floats(m.m.body_inertia, 3*int(m.m.nbody))[3*i:])
	copy(ipos[:], floats(m.m.body_ipos, 3*int(m.m.nbody))[3*i:])
	return
}

// gravity is the model's gravity vector (a view: writing it changes the
// model for every data; the tests turn the pendulum's upright position
// into a stable one with it).
func (m *model) gravity() []float64 { return floats(&m.m.opt.gravity[0], 3) }

// dofArmature and dofDamping view the armature and damping of each degree
// of freedom (writable, as gravity).
func (m *model) dofArmature() []float64 { return floats(m.m.dof_armature, m.nv) }
func (m *model) dofDamping() []float64  { return floats(m.m.dof_damping, m.nv) }
